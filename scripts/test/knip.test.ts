// Unused files, exports, types and dependencies across the workspace (knip, configured by
// knip.jsonc): a library's public entries count as used; what nothing reaches is dead code.
import { describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import { flattenKnipReport, knipIssues } from "../lib/knip-check.mjs";
import { toolEnv } from "../lib/package-checks.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");

describe("knip", () => {
  it("finds nothing unused or unlisted in the workspace", () => {
    expect(knipIssues(repoRoot, toolEnv(repoRoot))).toEqual([]);
  }, 180_000);

  it("reads every kind of finding of its JSON report", () => {
    const report = {
      issues: [
        { file: "packages/x/src/dead.ts", files: [{ name: "packages/x/src/dead.ts" }], exports: [] },
        {
          file: "packages/x/package.json",
          dependencies: [{ name: "left-pad", line: 9, col: 6 }],
          devDependencies: [],
          binaries: [],
        },
        { file: "packages/x/src/a.ts", exports: [{ name: "helper" }], types: [{ name: "Shape" }] },
      ],
    };
    expect(flattenKnipReport(report)).toEqual([
      "packages/x/src/dead.ts: files packages/x/src/dead.ts",
      "packages/x/package.json: dependencies left-pad",
      "packages/x/src/a.ts: exports helper",
      "packages/x/src/a.ts: types Shape",
    ]);
  });
});
