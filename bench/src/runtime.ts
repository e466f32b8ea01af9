// Which agentkit a benchmark measures. By default the built dist of each package, as
// `npm install @agentkit/...` gives it (and as ADK is measured: its published JavaScript);
// the benchmarks' own TypeScript runs on Node's type stripping (`src/ts-resolve-hook.ts`), so
// nothing rewrites agentkit's code on the way. Started with `--conditions=@agentkit/source
// --import tsx` they measure the sources instead: no build needed and profiles name source
// files, but tsx's output costs more than the dist (with its `__name` wrapper on every closure
// made per request, the warm HTTP server spent 10-20% more CPU per flow; fresh servers and
// in-process runs measured the same).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "./repo-root.js";

/** True when this process resolves `@agentkit/*` to their sources (tsx and the source condition). */
export function fromSources(): boolean {
  return import.meta.resolve("@agentkit/core").includes("/src/");
}

/** For headers: what the figures measure. */
export function runtimeLabel(): string {
  return fromSources() ? "agentkit from its sources through tsx" : "agentkit from its built dist";
}

/** A package's entry in another checkout (`--baseline DIR`), in the runtime this process uses. */
export function packageEntry(checkoutRoot: string, packageDir: string): string {
  return join(checkoutRoot, "packages", packageDir, fromSources() ? "src/index.ts" : "dist/index.js");
}

function newestMtime(dir: string): { file: string; mtimeMs: number } {
  let newest = { file: dir, mtimeMs: 0 };
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { file, mtimeMs };
  }
  return newest;
}

/**
 * Warns (stderr) when a package's sources changed after its dist was last written, so figures
 * of code that is not the checkout's do not pass unnoticed: `pnpm bench` builds first, a direct
 * `node` run does not. A warning, not an error: a source touched without a change (a checkout
 * of another branch and back) is newer than a dist that turbo's cache rightly keeps.
 * Does nothing when running from sources.
 */
export function warnIfDistStale(): void {
  if (fromSources()) return;
  const packages = join(repoRoot, "packages");
  for (const name of readdirSync(packages)) {
    const src = join(packages, name, "src");
    const dist = join(packages, name, "dist");
    let built: number;
    let changed: { file: string; mtimeMs: number };
    try {
      built = newestMtime(dist).mtimeMs;
      changed = newestMtime(src);
    } catch {
      continue; // no dist (a package the benchmarks do not load: its import would fail loudly) or no sources
    }
    if (changed.mtimeMs > built)
      process.stderr.write(
        `warning: packages/${name}/dist is older than ${changed.file.slice(repoRoot.length)}; these figures may ` +
          "not be this checkout's code. `pnpm bench` builds first (or `pnpm turbo run build`); " +
          "`node --conditions=@agentkit/source --import tsx src/<benchmark>.ts` measures the sources.\n",
      );
  }
}
