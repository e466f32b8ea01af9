import { describe, expect, it, afterEach } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkDependencyRule, importsOf, packageOf } from "../lib/dependency-rule.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");
const temps: string[] = [];

function tree(files: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), "deprule-"));
  temps.push(root);
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content));
  }
  return root;
}

const corePkg = { name: "@agentkit/core", sideEffects: false, dependencies: { zod: "4" } };

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("dependency rule", () => {
  it("holds for this repository", () => {
    expect(checkDependencyRule(repoRoot)).toEqual([]);
  });

  it("rejects core depending on our packages or on runtime deps beyond zod", () => {
    const root = tree({
      "packages/core/package.json": {
        ...corePkg,
        dependencies: { zod: "4", express: "5", "@agentkit/sessions": "workspace:*" },
      },
      "packages/core/src/index.ts": "export const x = 1;\n",
    });
    const v: string[] = checkDependencyRule(root);
    expect(v.some((m) => m.includes("must not depend on @agentkit/sessions"))).toBe(true);
    expect(v.some((m) => m.includes("must not depend on express at run time"))).toBe(true);
  });

  it("rejects the server importing a concrete backend", () => {
    const root = tree({
      "packages/core/package.json": corePkg,
      "packages/server/package.json": {
        name: "@agentkit/server",
        sideEffects: false,
        dependencies: { "@agentkit/core": "workspace:*", "@agentkit/sessions": "workspace:*" },
      },
      "packages/server/src/app.ts":
        'import { SqliteSessionService } from "@agentkit/sessions/sqlite";\nexport { SqliteSessionService };\n',
    });
    const v: string[] = checkDependencyRule(root);
    expect(v).toEqual(
      expect.arrayContaining([
        expect.stringContaining("@agentkit/server must not depend on @agentkit/sessions"),
        expect.stringContaining("@agentkit/server must not import @agentkit/sessions"),
      ]),
    );
  });

  it("confines vendor SDKs to their folder and requires declared imports", () => {
    const root = tree({
      "packages/core/package.json": corePkg,
      "packages/models/package.json": {
        name: "@agentkit/models",
        sideEffects: false,
        dependencies: { "@agentkit/core": "workspace:*" },
        peerDependencies: { openai: "7" },
      },
      "packages/models/src/openai/openai-model.ts": 'import OpenAI from "openai";\nexport { OpenAI };\n',
      "packages/models/src/registry.ts":
        'import type { OpenAI } from "openai";\nimport x from "left-pad";\nexport type { OpenAI }; export { x };\n',
    });
    const v: string[] = checkDependencyRule(root);
    expect(v).toEqual([
      expect.stringContaining('models/src/registry.ts: "openai" may only be imported under src/openai/'),
      expect.stringContaining('imports "left-pad" but @agentkit/models does not declare left-pad'),
    ]);
  });

  it("rejects relative imports across packages and missing sideEffects: false", () => {
    const root = tree({
      "packages/core/package.json": corePkg,
      "packages/tools/package.json": { name: "@agentkit/tools", dependencies: { "@agentkit/core": "workspace:*" } },
      "packages/tools/src/index.ts": 'export * from "../../core/src/index.js";\n',
    });
    const v: string[] = checkDependencyRule(root);
    expect(v).toEqual([
      expect.stringContaining('"sideEffects": false'),
      expect.stringContaining('relative import "../../core/src/index.js" leaves the package'),
    ]);
  });

  it("allows the test-only helpers in devDependencies, never at run time", () => {
    const lib = (deps: Record<string, unknown>) => ({
      name: "@agentkit/tools",
      sideEffects: false,
      dependencies: { "@agentkit/core": "workspace:*" },
      ...deps,
    });
    const ok = tree({
      "packages/core/package.json": corePkg,
      "packages/tools/package.json": lib({ devDependencies: { "@agentkit/test-support": "workspace:*" } }),
      "packages/tools/src/index.ts": "export const x = 1;\n",
    });
    expect(checkDependencyRule(ok)).toEqual([]);
    const bad = tree({
      "packages/core/package.json": corePkg,
      "packages/tools/package.json": lib({
        dependencies: { "@agentkit/core": "workspace:*", "@agentkit/test-support": "workspace:*" },
      }),
      "packages/tools/src/index.ts": "export const x = 1;\n",
    });
    expect(checkDependencyRule(bad)).toEqual(
      expect.arrayContaining([expect.stringContaining("@agentkit/test-support is for tests only")]),
    );
  });

  it("lets the server test against real backends (devDependencies) but never import them from src/", () => {
    const server = (deps: Record<string, unknown>, source = "export const x = 1;\n") =>
      tree({
        "packages/core/package.json": corePkg,
        "packages/server/package.json": {
          name: "@agentkit/server",
          sideEffects: false,
          dependencies: { "@agentkit/core": "workspace:*" },
          ...deps,
        },
        "packages/server/src/index.ts": source,
      });
    expect(checkDependencyRule(server({ devDependencies: { "@agentkit/sessions": "workspace:*" } }))).toEqual([]);
    expect(
      checkDependencyRule(
        server(
          { devDependencies: { "@agentkit/sessions": "workspace:*" } },
          'import { X } from "@agentkit/sessions/sqlite";\nexport { X };\n',
        ),
      ),
    ).toEqual([expect.stringContaining("@agentkit/server must not import @agentkit/sessions")]);
    expect(
      checkDependencyRule(
        server({ dependencies: { "@agentkit/core": "workspace:*", "@agentkit/artifacts": "workspace:*" } }),
      ),
    ).toEqual([expect.stringContaining("must not depend on @agentkit/artifacts")]);
  });

  it("lets composition roots (apps) use any backend", () => {
    const root = tree({
      "packages/core/package.json": corePkg,
      "apps/dev-server/package.json": { name: "dev-server", dependencies: { "@agentkit/sessions": "workspace:*" } },
      "apps/dev-server/src/main.ts": 'import { X } from "@agentkit/sessions/sqlite";\nexport { X };\n',
    });
    expect(checkDependencyRule(root)).toEqual([]);
  });
});

describe("import scanning", () => {
  it("finds static, type, side-effect, dynamic and re-export imports, ignoring comments", () => {
    const src = [
      'import a from "a";',
      'import type { B } from "@s/b/sub";',
      'import "c";',
      'export { d } from "./d.js";',
      'const e = await import("e");',
      '// import z from "z";',
      '/* import y from "y"; */',
    ].join("\n");
    expect(importsOf(src).sort()).toEqual(["./d.js", "@s/b/sub", "a", "c", "e"]);
    expect(packageOf("@s/b/sub")).toBe("@s/b");
    expect(packageOf("lodash/fp")).toBe("lodash");
  });
});
