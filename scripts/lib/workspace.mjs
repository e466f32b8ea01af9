// The workspace's packages, read from pnpm-workspace.yaml (its `packages:` list of folders and
// `folder/*` patterns), for the checks that look at every package.json.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** `{ dir, pkg }` of every workspace package, the root first. */
export function workspacePackages(repoRoot) {
  const out = [{ dir: repoRoot, pkg: readJson(join(repoRoot, "package.json")) }];
  for (const pattern of workspacePatterns(repoRoot)) {
    const dirs = pattern.endsWith("/*")
      ? readdirSync(join(repoRoot, pattern.slice(0, -2)))
          .sort()
          .map((name) => join(repoRoot, pattern.slice(0, -2), name))
      : [join(repoRoot, pattern)];
    for (const dir of dirs)
      if (existsSync(join(dir, "package.json"))) out.push({ dir, pkg: readJson(join(dir, "package.json")) });
  }
  return out;
}

/** The packages that get published: every workspace package not marked private. */
export function publishablePackages(repoRoot) {
  return workspacePackages(repoRoot).filter(({ pkg }) => pkg.private !== true);
}

function workspacePatterns(repoRoot) {
  const lines = readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8").split("\n");
  const start = lines.indexOf("packages:");
  const patterns = [];
  for (const line of lines.slice(start + 1)) {
    const item = /^\s+-\s+"?([^"]+?)"?\s*$/.exec(line);
    if (!item) break;
    patterns.push(item[1]);
  }
  return patterns;
}

function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}
