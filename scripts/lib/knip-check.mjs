// knip (unused files, exports, types and dependencies; unlisted dependencies and binaries) over
// the whole workspace, configured by knip.jsonc at the root, as one line per finding.
import { spawnSync } from "node:child_process";

/** `"file: kind name"` for every knip finding in the workspace at `repoRoot`; [] when clean. */
export function knipIssues(repoRoot, env = process.env) {
  const run = spawnSync("knip", ["--reporter", "json", "--no-progress"], {
    cwd: repoRoot,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new Error(`knip did not report (exit ${run.status}): ${run.error?.message ?? run.stderr}`);
  }
  const issues = flattenKnipReport(report);
  if (run.status !== 0 && issues.length === 0) issues.push(`knip exited ${run.status}: ${run.stderr}`);
  return issues;
}

/** knip's JSON report (`{ issues: [{ file, <kind>: [{ name }] }] }`) as `"file: kind name"` lines. */
export function flattenKnipReport(report) {
  const out = [];
  for (const entry of report.issues ?? []) {
    for (const [kind, items] of Object.entries(entry)) {
      if (!Array.isArray(items)) continue;
      for (const item of items) out.push(`${entry.file}: ${kind} ${item.name ?? item.symbol ?? JSON.stringify(item)}`);
    }
  }
  return out;
}
