import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { findValueCycles, staticImportsOf } from "../lib/import-cycles.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");
const temps: string[] = [];

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "cycles-"));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const packageDirs = ["packages", "apps"].flatMap((group) =>
  readdirSync(join(repoRoot, group)).map((name) => join(group, name)),
);

describe("import cycles", () => {
  it.each(packageDirs)("%s has no value-import cycle", (dir) => {
    expect(findValueCycles(join(repoRoot, dir))).toEqual([]);
  });

  it("finds a value cycle and ignores type-only and dynamic ones", () => {
    const root = tree({
      "src/a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
      "src/b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
      "src/c.ts": 'import type { D } from "./d.js";\nexport interface C { d?: D }\n',
      "src/d.ts": 'import { type C } from "./c.js";\nexport interface D { c?: C }\n',
      "src/e.ts": 'export const e = () => import("./f.js");\n',
      "src/f.ts": 'import { e } from "./e.js";\nexport const f = e;\n',
      "src/self.ts": 'export { x } from "./self.js";\nexport const x = 1;\n',
    });
    expect(findValueCycles(root)).toEqual(expect.arrayContaining([["src/a.ts", "src/b.ts"], ["src/self.ts"]]));
    expect(findValueCycles(root)).toHaveLength(2);
  });

  it("reads multi-line and mixed import clauses", () => {
    const imports = staticImportsOf(
      'import {\n  type A,\n  type B,\n} from "./ab.js";\nimport { type C, D } from "./cd.js";\nexport * from ' +
        '"./all.js";\nimport "./side.js";\n',
    );
    expect(imports).toEqual([
      { specifier: "./ab.js", typeOnly: true },
      { specifier: "./cd.js", typeOnly: false },
      { specifier: "./all.js", typeOnly: false },
      { specifier: "./side.js", typeOnly: false },
    ]);
  });
});
