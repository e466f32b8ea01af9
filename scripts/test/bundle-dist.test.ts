// scripts/bundle-dist.mjs, the build step after tsc that bundles each package entry: run on a
// small package whose dist/ is what tsc would emit, then the bundle is imported and compared with
// what the per-file modules did.
import { afterAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

const script = join(import.meta.dirname, "..", "bundle-dist.mjs");
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A package folder with these files (paths under it), e.g. `dist/index.js`. */
function fixturePackage(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-bundle-dist-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function bundle(dir: string, ...entries: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script, ...entries], { cwd: dir }, (error, _stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
    );
  });
}

const packageJson = JSON.stringify({
  name: "fixture",
  type: "module",
  exports: {
    ".": { types: "./dist/index.d.ts", default: "./dist/index.js" },
    "./extra": { types: "./dist/extra.d.ts", default: "./dist/extra.js" },
  },
});

describe("bundle-dist", () => {
  it("bundles each export entry, shares modules between entries and keeps class names", async () => {
    const dir = fixturePackage({
      "package.json": packageJson,
      "dist/index.d.ts": "export {};\n",
      "dist/index.js":
        'export { Widget } from "./widget.js";\nexport { registry } from "./shared/registry.js";\n' +
        'export const later = () => import("./lazy.js");\n',
      // A class whose body names itself: esbuild would call it `_Widget`.
      "dist/widget.js":
        'import { registry } from "./shared/registry.js";\n' +
        "export class Widget {\n  static create() { return new Widget(); }\n  constructor() { registry.add(this); }\n}\n",
      "dist/shared/registry.js": "export const registry = new Set();\n",
      "dist/lazy.js": 'import { Widget } from "./widget.js";\nexport const made = Widget.create();\n',
      "dist/extra.js":
        'export { registry as sameRegistry } from "./shared/registry.js";\nexport { Widget } from "./widget.js";\n',
    });
    const { code, stderr } = await bundle(dir);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    // tsc's per-file JavaScript is gone; entries keep their paths; declarations stay.
    expect(existsSync(join(dir, "dist", "widget.js"))).toBe(false);
    expect(existsSync(join(dir, "dist", "shared", "registry.js"))).toBe(false);
    expect(existsSync(join(dir, "dist", "index.d.ts"))).toBe(true);
    expect(readdirSync(join(dir, "dist", "chunks")).some((f) => f.endsWith(".js"))).toBe(true);
    expect(existsSync(join(dir, "dist", "index.js.map"))).toBe(true);

    const main = await import(pathToFileURL(join(dir, "dist", "index.js")).href);
    const extra = await import(pathToFileURL(join(dir, "dist", "extra.js")).href);
    expect(main.Widget.name).toBe("Widget");
    expect(main.Widget.create()).toBeInstanceOf(main.Widget);
    // One module instance behind both entries and the lazy chunk.
    expect(extra.Widget).toBe(main.Widget);
    expect(extra.sameRegistry).toBe(main.registry);
    const lazy = await main.later();
    expect(lazy.made).toBeInstanceOf(main.Widget);
    expect(main.registry.size).toBe(2);
  });

  it("fails when two files' classes of one name would be renamed in the bundle", async () => {
    const dir = fixturePackage({
      "package.json": packageJson,
      "dist/index.js": 'export { Thing as A } from "./a.js";\nexport { Thing as B } from "./b.js";\n',
      "dist/a.js": "export class Thing {}\n",
      "dist/b.js": "export class Thing {}\n",
      "dist/extra.js": "export const x = 1;\n",
    });
    const { code, stderr } = await bundle(dir);
    expect(code).toBe(1);
    expect(stderr).toMatch(/class Thing is Thing2 in .*index\.js \(two files declare it\)/);
    // Nothing replaced: tsc's output is still there.
    expect(readFileSync(join(dir, "dist", "a.js"), "utf8")).toBe("export class Thing {}\n");
  });

  it("fails without tsc's output", async () => {
    const dir = fixturePackage({ "package.json": packageJson });
    const { code, stderr } = await bundle(dir);
    expect(code).toBe(1);
    expect(stderr).toContain("run tsc first");
  });
});
