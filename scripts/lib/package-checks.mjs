// Checks of what a publishable package ships. Each package is packed once with `pnpm pack`, as
// publishing does (`workspace:` and `catalog:` ranges rewritten, only `files` included), then:
// publint lints the tarball's package.json against its files; attw ("are the types wrong?")
// resolves every export the way TypeScript does for ESM consumers; and every path the exports
// (all conditions, `@agentkit/source` too) and the source maps name must be in the tarball.
// Packages are ESM-only: attw's `esm-only` profile leaves out `require` and node10 resolution.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, dirname, join, normalize } from "node:path";
import { publint } from "publint";
import { formatMessage } from "publint/utils";

/** The environment the tools run in: the workspace root's binaries first on the PATH. */
export function toolEnv(repoRoot) {
  return { ...process.env, PATH: `${join(repoRoot, "node_modules", ".bin")}${delimiter}${process.env.PATH ?? ""}` };
}

/** Packs the package in `dir` into `destination`: `{ tarball, files }` (paths inside the package). */
export function packPackage(dir, destination, env = process.env) {
  const run = spawnSync("pnpm", ["pack", "--json", "--pack-destination", destination], {
    cwd: dir,
    env,
    encoding: "utf8",
  });
  if (run.status !== 0) throw new Error(`pnpm pack failed in ${dir}: ${run.error?.message ?? run.stderr}`);
  const result = JSON.parse(run.stdout.slice(run.stdout.indexOf("{")));
  return { tarball: result.filename, files: result.files.map((f) => f.path) };
}

/** publint's messages on a packed tarball, every level, warnings counted as errors. */
export async function publintMessages(tarball) {
  const bytes = readFileSync(tarball);
  const { messages, pkg } = await publint({
    pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) },
    level: "suggestion",
    strict: true,
  });
  return messages.map((m) => `${m.type} ${m.code}: ${formatMessage(m, pkg, { color: false })}`);
}

/** Resolution kinds the esm-only profile leaves out (CommonJS `require` and node10 resolution). */
const ESM_ONLY_IGNORED = new Set(["node10", "node16-cjs"]);

/** attw's problems on a packed tarball under the esm-only profile; [] when the types are right. */
export function attwProblems(tarball, env = process.env) {
  const run = spawnSync(
    "attw",
    [tarball, "--profile", "esm-only", "--no-definitely-typed", "--format", "json", "--no-color"],
    { env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  let report;
  try {
    report = JSON.parse(run.stdout);
  } catch {
    throw new Error(`attw did not report (exit ${run.status}): ${run.error?.message ?? run.stderr}`);
  }
  // attw passes a package without any declaration file ("does not contain types"); ours must have them.
  if (report.analysis?.types === false) return ["the package contains no types"];
  const problems = Object.values(report.problems ?? {})
    .flat()
    .filter((p) => !ESM_ONLY_IGNORED.has(p.resolutionKind))
    .map((p) => `${p.kind} at ${p.entrypoint ?? "?"} (${p.resolutionKind ?? p.resolutionOption ?? "any"})`);
  if (run.status !== 0 && problems.length === 0) problems.push(`attw exited ${run.status}: ${run.stderr}`);
  return problems;
}

/** Paths named by the exports (every condition) or by a packed source map that the tarball lacks. */
export function missingFromPack(dir, pkg, files) {
  const packed = new Set(files);
  const missing = [];
  for (const target of exportTargets(pkg.exports)) {
    const path = normalize(target);
    if (!packed.has(path)) missing.push(`exports target ${target}`);
  }
  for (const map of files.filter((f) => f.endsWith(".map"))) {
    const { sources = [] } = JSON.parse(readFileSync(join(dir, map), "utf8"));
    for (const source of sources) {
      const path = normalize(join(dirname(map), source));
      if (!packed.has(path)) missing.push(`${source} (source of ${map})`);
    }
  }
  return missing;
}

function exportTargets(exports) {
  if (typeof exports === "string") return [exports];
  if (exports === null || typeof exports !== "object") return [];
  return Object.values(exports).flatMap(exportTargets);
}
