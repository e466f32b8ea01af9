// Formatting and lint of the whole repository: `biome check` (no writes) must find nothing.
// Fix with `pnpm format` and `pnpm exec biome check --write .`; see docs/decisions/0005.
import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { biomeDiagnostics } from "../lib/biome-check.mjs";
import { toolEnv } from "../lib/package-checks.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");
const env = toolEnv(repoRoot);
const temps: string[] = [];

afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

describe("biome check", () => {
  it("finds no formatting or lint problem in the repository", () => {
    expect(biomeDiagnostics(repoRoot, env)).toEqual([]);
  }, 120_000);

  it("names the file and rule of each problem", () => {
    const dir = mkdtempSync(join(tmpdir(), "biome-check-"));
    temps.push(dir);
    writeFileSync(join(dir, "biome.json"), "{}");
    writeFileSync(join(dir, "bad.ts"), "export   const a=1\nexport function f(x: any) { return x }\n");
    const found = biomeDiagnostics(dir, env);
    expect(found).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^bad\.ts:2 lint\/suspicious\/noExplicitAny: /),
        expect.stringMatching(/^bad\.ts format: /),
      ]),
    );
  }, 60_000);
});
