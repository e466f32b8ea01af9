// What the published packages look like to their users, checked on the built packages (turbo
// builds every publishable package before this task, see turbo.json): publint, attw under the
// esm-only profile, and every path the exports and source maps name shipped; plus the rules every
// package.json follows (engines, the one zod range). See docs/decisions/0005.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { attwProblems, missingFromPack, packPackage, publintMessages, toolEnv } from "../lib/package-checks.mjs";
import { publishablePackages, workspacePackages } from "../lib/workspace.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");
const env = toolEnv(repoRoot);
const publishable = publishablePackages(repoRoot).map(({ dir, pkg }) => ({ name: pkg.name as string, dir, pkg }));
const packs = new Map<string, { tarball: string; files: string[] }>();
let out = "";

beforeAll(() => {
  out = mkdtempSync(join(tmpdir(), "agentkit-pack-"));
  for (const p of publishable) packs.set(p.name, packPackage(p.dir, out, env));
}, 180_000);

afterAll(() => {
  if (out) rmSync(out, { recursive: true, force: true });
});

describe.each(publishable)("$name", ({ name, dir, pkg }) => {
  it("passes publint", async () => {
    expect(await publintMessages(packs.get(name)!.tarball)).toEqual([]);
  }, 60_000);

  it("resolves to types and ESM for TypeScript and bundlers (attw, esm-only profile)", () => {
    expect(attwProblems(packs.get(name)!.tarball, env)).toEqual([]);
  }, 60_000);

  it("ships every file its exports and source maps name", () => {
    expect(missingFromPack(dir, pkg, packs.get(name)!.files)).toEqual([]);
  });
});

describe("the checks", () => {
  it("catch a package with misordered conditions, missing types and unshipped sources", async () => {
    const dir = join(out, "broken");
    mkdirSync(join(dir, "dist"), { recursive: true });
    mkdirSync(join(dir, "src"), { recursive: true });
    const pkg = {
      name: "broken-package",
      version: "1.0.0",
      type: "module",
      exports: {
        ".": { "@agentkit/source": "./src/index.ts", default: "./dist/index.js", types: "./dist/index.d.ts" },
      },
      files: ["dist"],
    };
    writeFileSync(join(dir, "package.json"), JSON.stringify(pkg));
    writeFileSync(join(dir, "src", "index.ts"), "export const a: number = 1;\n");
    writeFileSync(join(dir, "dist", "index.js"), "export const a = 1;\n//# sourceMappingURL=index.js.map\n");
    writeFileSync(join(dir, "dist", "index.js.map"), JSON.stringify({ version: 3, sources: ["../src/index.ts"] }));
    const untyped = packPackage(dir, out, env);
    // attw calls a package without any declaration file fine ("no types"): reported all the same.
    expect(attwProblems(untyped.tarball, env)).toEqual(["the package contains no types"]);

    writeFileSync(join(dir, "dist", "other.d.ts"), "export declare const b: number;\n");
    const { tarball, files } = packPackage(dir, out, env);
    expect((await publintMessages(tarball)).join("\n")).toMatch(/EXPORTS_TYPES_SHOULD_BE_FIRST|FILE_DOES_NOT_EXIST/);
    expect(attwProblems(tarball, env)).toEqual(
      expect.arrayContaining(["UntypedResolution at . (node16-esm)", "UntypedResolution at . (bundler)"]),
    );
    expect(missingFromPack(dir, pkg, files)).toEqual([
      "exports target ./src/index.ts",
      "exports target ./dist/index.d.ts",
      "../src/index.ts (source of dist/index.js.map)",
    ]);
  }, 60_000);
});

describe("every package.json of the workspace", () => {
  const all = workspacePackages(repoRoot).map(({ dir, pkg }) => ({ at: relative(repoRoot, dir) || ".", pkg }));

  it("declares the Node versions it runs on (engines.node >=24)", () => {
    expect(all.filter(({ pkg }) => pkg.engines?.node !== ">=24").map(({ at }) => at)).toEqual([]);
  });

  it("takes zod from the one catalog range of pnpm-workspace.yaml", () => {
    const catalog = /^catalog:\n(?:\s+.*\n)*?\s+zod:\s*(\S+)/m.exec(
      readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8"),
    );
    expect(catalog?.[1]).toMatch(/^\^4\./);
    const specs = all.flatMap(({ at, pkg }) =>
      ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]
        .map((field) => pkg[field]?.zod)
        .filter((spec): spec is string => spec !== undefined)
        .map((spec) => `${at}: ${spec}`),
    );
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.filter((s) => !s.endsWith(": catalog:"))).toEqual([]);
  });
});

describe("turbo.json", () => {
  it("builds every publishable package before these checks, and never replays them from its cache", () => {
    const turbo = JSON.parse(readFileSync(join(repoRoot, "turbo.json"), "utf8"));
    const task = turbo.tasks["@agentkit/repo-checks#test"];
    expect(task.cache).toBe(false);
    expect([...task.dependsOn].sort()).toEqual(publishable.map((p) => `${p.name}#build`).sort());
  });
});
