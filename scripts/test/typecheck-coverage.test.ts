// Every package is type-checked: its sources and tests are in the root program
// (tsconfig.typecheck.json, the `typecheck:sources` task of `pnpm test`), or the package keeps a
// `typecheck` script of its own, which turbo runs. A new package covered by neither fails here.
import { describe, expect, it } from "@jest/globals";
import { existsSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { workspacePackages } from "../lib/workspace.mjs";

const repoRoot = join(import.meta.dirname, "..", "..");

/** The root program's `include` entries, read as tsc reads them (comments allowed). */
function rootIncludes(): string[] {
  const file = join(repoRoot, "tsconfig.typecheck.json");
  const parsed = ts.parseConfigFileTextToJson(file, readFileSync(file, "utf8"));
  if (parsed.error) throw new Error(ts.flattenDiagnosticMessageText(parsed.error.messageText, "\n"));
  return (parsed.config as { include: string[] }).include;
}

describe("type-check coverage", () => {
  const includes = rootIncludes();
  const packages = workspacePackages(repoRoot).filter(({ dir }) => dir !== repoRoot);

  it.each(packages.map(({ dir, pkg }) => [relative(repoRoot, dir), pkg] as const))(
    "%s is type-checked by the root program or by its own typecheck script",
    (dir, pkg) => {
      const scripts = (pkg as { scripts?: Record<string, string> }).scripts ?? {};
      if (scripts.typecheck) return;
      // Covered by the root program: each of its source and test folders is included.
      const folders = ["src", "test"].filter((name) => existsSync(join(repoRoot, dir, name)));
      const missing = folders
        .map((name) => `${dir}/${name}`)
        .filter((folder) => !includes.some((entry) => folder === entry || folder.startsWith(`${entry}/`)));
      const uncovered = includes.includes(dir) ? [] : folders.length === 0 ? [dir] : missing;
      expect(uncovered).toEqual([]);
    },
  );

  it("lists only folders that exist", () => {
    expect(includes.filter((entry) => !existsSync(join(repoRoot, entry)))).toEqual([]);
  });
});
