// `biome check` (formatting and lint, no writes) as data: one line per diagnostic, naming the file.
// The JSON reporter is marked experimental by Biome; the version is pinned, and a change of its
// shape fails the check loudly instead of passing it.
import { spawnSync } from "node:child_process";

/** `"path:line category: message"` for every diagnostic of `biome check` run in `dir`; [] when clean. */
export function biomeDiagnostics(dir, env = process.env) {
  const run = spawnSync("biome", ["check", "--reporter=json", "--max-diagnostics=none", "."], {
    cwd: dir,
    env,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new Error(`biome check did not report (exit ${run.status}): ${run.error?.message ?? run.stderr}`);
  }
  const lines = report.diagnostics.map((d) => {
    const path = typeof d.location?.path === "string" ? d.location.path : (d.location?.path?.file ?? "?");
    const line = d.location?.start?.line;
    return `${path}${line ? `:${line}` : ""} ${d.category ?? d.severity}: ${d.message}`;
  });
  if (run.status !== 0 && lines.length === 0) lines.push(`biome check exited ${run.status}: ${run.stderr}`);
  return lines;
}
