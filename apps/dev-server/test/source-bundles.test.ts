// The source runtime's bundle cache (src/source-bundles.ts) on a workspace of its own: what a
// build writes, that the bundles behave as the sources do (class names, transformed syntax,
// `import.meta.url`, one instance of each package, dependencies found from the package), and
// that any change to what a build read sends the next start back to the sources.
import { afterAll, beforeEach, describe, expect, it } from "@jest/globals";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildSourceBundles, findSourceBundles } from "../src/source-bundles.js";

const scratch = mkdtempSync(join(tmpdir(), "agentkit-source-bundles-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const SOURCES: Record<string, string> = {
  "tsconfig.base.json": JSON.stringify({ compilerOptions: { target: "ES2023", verbatimModuleSyntax: true } }),
  "packages/alpha/package.json": JSON.stringify({
    name: "@fake/alpha",
    type: "module",
    exports: {
      ".": { "@agentkit/source": "./src/index.ts" },
      "./extra": { "@agentkit/source": "./src/extra/index.ts" },
    },
  }),
  // A parameter property (a transform, not a strip), a class that names itself in its body
  // (esbuild's `var Alpha = class _Alpha`), import.meta.url, a dependency of the package's own.
  "packages/alpha/src/index.ts": `import { tiny } from "tiny-dep";
export class Alpha {
  static readonly self: typeof Alpha = Alpha;
  constructor(private readonly n: number) {}
  get value(): number { return this.n * tiny; }
}
export const here: string = import.meta.url;
export { shared } from "./shared.js";
`,
  "packages/alpha/src/shared.ts": "export const shared = { count: 0 };\n",
  "packages/alpha/src/extra/index.ts": `import { shared } from "../shared.js";
export function bump(): number { return ++shared.count; }
`,
  "packages/alpha/node_modules/tiny-dep/package.json": JSON.stringify({
    name: "tiny-dep",
    type: "module",
    main: "index.js",
  }),
  "packages/alpha/node_modules/tiny-dep/index.js": "export const tiny = 10;\n",
  "packages/beta/package.json": JSON.stringify({
    name: "@fake/beta",
    type: "module",
    exports: { ".": { "@agentkit/source": "./src/index.ts" } },
  }),
  "packages/beta/src/index.ts": `import { Alpha } from "@fake/alpha";
export const make = (n: number): Alpha => new Alpha(n);
`,
  "apps/dev-server/src/main.ts": `import { make } from "@fake/beta";
export function main(): number { return make(2).value; }
`,
};

let workspace = "";
let cacheDir = "";
const options = () => ({ workspace, cacheDir });
const write = (file: string, text: string) => {
  mkdirSync(dirname(join(workspace, file)), { recursive: true });
  writeFileSync(join(workspace, file), text);
};
/** Marks a file as written a minute ago, so a build that starts now may keep it. */
const settle = (file: string) => {
  const past = new Date(Date.now() - 60_000);
  utimesSync(join(workspace, file), past, past);
};

beforeEach(() => {
  workspace = mkdtempSync(join(scratch, "ws-"));
  cacheDir = join(mkdtempSync(join(scratch, "cache-")), "bundles");
  for (const [file, text] of Object.entries(SOURCES)) {
    write(file, text);
    settle(file);
  }
});

const hooksUrl = new URL("../src/register-source-hooks.ts", import.meta.url).href;
const bundlesUrl = new URL("../src/source-bundles.ts", import.meta.url).href;

/** Loads the current build in a fresh Node process, as bin/agentkit.mjs does, and reports on it. */
function runBundles(): Record<string, unknown> {
  const script = `
    const { registerSourceHooks } = await import(${JSON.stringify(hooksUrl)});
    registerSourceHooks({});
    const bundles = await import(${JSON.stringify(bundlesUrl)});
    const found = bundles.findSourceBundles(${JSON.stringify(options())});
    bundles.registerSourceBundleHooks(found);
    const { main } = await import(found.main);
    const alpha = await import("@fake/alpha");
    const { make } = await import("@fake/beta");
    const { bump } = await import("@fake/alpha/extra");
    bump();
    console.log(JSON.stringify({
      main: main(),
      className: alpha.Alpha.name,
      self: alpha.Alpha.self === alpha.Alpha,
      oneInstance: make(1) instanceof alpha.Alpha,
      here: alpha.here,
      sharedCount: alpha.shared.count,
      mainUrl: found.main,
    }));`;
  const out = execFileSync(
    process.execPath,
    ["--input-type=module", "--disable-warning=ExperimentalWarning", "-e", script],
    {
      env: { ...process.env, NODE_OPTIONS: "" },
      encoding: "utf8",
    },
  );
  return JSON.parse(out.trim().split("\n").at(-1)!) as Record<string, unknown>;
}

describe("source bundles", () => {
  it("are found after a build, and behave as the sources do", async () => {
    expect(findSourceBundles(options())).toBeUndefined();
    const result = await buildSourceBundles(options());
    expect(result).toEqual({ built: true, ms: expect.any(Number) });
    const found = findSourceBundles(options());
    expect([...found!.entries.keys()].sort()).toEqual(["@fake/alpha", "@fake/alpha/extra", "@fake/beta"]);
    expect(found!.main.startsWith(pathToFileURL(cacheDir).href)).toBe(true);

    const report = runBundles();
    expect(report).toEqual({
      main: 20,
      className: "Alpha",
      self: true,
      oneInstance: true,
      here: pathToFileURL(join(workspace, "packages/alpha/src/index.ts")).href,
      // index and extra share shared.ts (a chunk), so bump() counts on the same object.
      sharedCount: 1,
      mainUrl: found!.main,
    });
    // What ran is the bundle: its files are in the cache, none of them TypeScript.
    expect(readFileSync(fileURLToPath(found!.main), "utf8")).not.toContain("number");
  });

  it.each([
    ["an edited source", () => write("packages/alpha/src/shared.ts", "export const shared = { count: 100 };\n")],
    ["a deleted source", () => rmSync(join(workspace, "packages/alpha/src/extra/index.ts"))],
    ["a package.json", () => write("packages/beta/package.json", `${SOURCES["packages/beta/package.json"]} `)],
    ["the shared tsconfig", () => write("tsconfig.base.json", "{}")],
  ])("are not used after a change to %s", async (_what, change) => {
    expect((await buildSourceBundles(options())).built).toBe(true);
    expect(findSourceBundles(options())).toBeDefined();
    change();
    expect(findSourceBundles(options())).toBeUndefined();
  });

  it("a rebuild after an edit runs the edit, and old builds are pruned", async () => {
    expect((await buildSourceBundles(options())).built).toBe(true);
    write("packages/alpha/src/shared.ts", "export const shared = { count: 100 };\n");
    settle("packages/alpha/src/shared.ts");
    for (let i = 0; i < 3; i++) expect((await buildSourceBundles(options())).built).toBe(true);
    expect(runBundles()).toMatchObject({ sharedCount: 101 });
    const [folder] = readdirSync(cacheDir);
    const builds = readdirSync(join(cacheDir, folder!)).filter((name) => name.startsWith("b-"));
    expect(builds).toHaveLength(3); // the current one and the two before it
  });

  it("are not kept when a source changed while the build ran", async () => {
    // A modification time at or after the build's start: the bundle may hold either version.
    const now = new Date();
    utimesSync(join(workspace, "packages/alpha/src/shared.ts"), now, new Date(now.getTime() + 5_000));
    expect(await buildSourceBundles(options())).toEqual({
      built: false,
      reason: "changed",
      detail: "packages/alpha/src/shared.ts",
    });
    expect(findSourceBundles(options())).toBeUndefined();
  });

  it("do not build what they cannot bundle faithfully", async () => {
    write("packages/beta/src/index.ts", "export const where = import.meta.dirname;\n");
    settle("packages/beta/src/index.ts");
    const result = await buildSourceBundles(options());
    expect(result).toMatchObject({ built: false, reason: "unbundleable" });
    expect((result as { detail: string }).detail).toContain("import.meta other than import.meta.url");
    expect(findSourceBundles(options())).toBeUndefined();
  });

  it("build one at a time, and take over the lock of a builder that died", async () => {
    expect((await buildSourceBundles(options())).built).toBe(true);
    const [folder] = readdirSync(cacheDir);
    const lock = join(cacheDir, folder!, "build.lock");
    writeFileSync(lock, String(process.pid)); // a live builder (this process)
    expect(await buildSourceBundles(options())).toEqual({ built: false, reason: "busy" });
    // A pid no process has (above the kernel's pid_max).
    writeFileSync(lock, "99999999");
    expect((await buildSourceBundles(options())).built).toBe(true);
    expect(() => statSync(lock)).toThrow();
  });

  it("neither read nor write a cache folder other users can write to", async () => {
    expect((await buildSourceBundles(options())).built).toBe(true);
    chmodSync(cacheDir, 0o777);
    try {
      expect(findSourceBundles(options())).toBeUndefined();
      expect(await buildSourceBundles(options())).toMatchObject({ built: false, reason: "unbundleable" });
    } finally {
      chmodSync(cacheDir, 0o700);
    }
    expect(findSourceBundles(options())).toBeDefined();
  });

  it("ignore a damaged or foreign manifest", async () => {
    expect((await buildSourceBundles(options())).built).toBe(true);
    const [folder] = readdirSync(cacheDir);
    const manifestFile = join(cacheDir, folder!, "current.json");
    const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as Record<string, unknown>;
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, workspace: "/elsewhere/" }));
    expect(findSourceBundles(options())).toBeUndefined();
    writeFileSync(manifestFile, JSON.stringify({ ...manifest, format: 0 }));
    expect(findSourceBundles(options())).toBeUndefined();
    writeFileSync(manifestFile, "{");
    expect(findSourceBundles(options())).toBeUndefined();
  });

  it("stop on abort without publishing anything", async () => {
    const abort = new AbortController();
    const building = buildSourceBundles({ ...options(), signal: abort.signal });
    abort.abort();
    expect(await building).toEqual({ built: false, reason: "aborted" });
    expect(findSourceBundles(options())).toBeUndefined();
    // Nothing half-written is left, and the next build works.
    const [folder] = readdirSync(cacheDir);
    expect(readdirSync(join(cacheDir, folder!)).filter((name) => name.startsWith("b-"))).toEqual([]);
    expect((await buildSourceBundles(options())).built).toBe(true);
  });
});
