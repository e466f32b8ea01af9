// The `source` runtime's bundle cache (bin/agentkit.mjs). Node's cost at start-up is per module,
// and the workspace's packages are ~280 source files: loaded one by one through the source hooks
// they took about 150 ms more than the built dist. So once a server is warm, the CLI bundles the
// workspace's sources with esbuild, one bundle per package entry as `pnpm build` does, into a
// private cache folder, and the next start loads those bundles while every file they came from
// is unchanged. Any edit, added import, deletion or package.json change since the build sends the
// start back to the sources (and the next warm server builds again), so what runs is always what
// the sources say. Loaded by the bin under Node's own type stripping: builtins only, erasable
// syntax only; esbuild is imported only to build.
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { registerHooks } from "node:module";
import type { Plugin } from "esbuild";
import { basename, join, relative, sep } from "node:path";
import { pathToFileURL } from "node:url";
// `.ts`: the bin loads this file with Node's own type stripping before any module hook exists.
import { privateDir } from "./register-source-hooks.ts";

/** Bumped whenever what a build writes changes: a cache of another format is never read. */
const FORMAT = 1;
/** Builds kept besides the current one (a running server may still import their chunks). */
const KEEP_OLD_BUILDS = 2;

export interface SourceBundleOptions {
  /** The workspace root folder. */
  workspace: string;
  /**
   * Where builds are kept (a subfolder per workspace). Bundles run as code: a folder that is not
   * private to this user (see `privateDir`) is neither read nor written.
   */
  cacheDir: string;
}

/** A usable build: what `registerSourceBundleHooks` maps and where the CLI's main module is. */
export interface SourceBundles {
  /** Package specifier (`@agentkit/core`, `@agentkit/core/internal`) → its bundle's file URL. */
  readonly entries: ReadonlyMap<string, string>;
  /** The file URL of the CLI's `main` module in the bundles. */
  readonly main: string;
  /** The build's folder URL (ends in `/`). */
  readonly root: string;
  /** Bundle subfolder (`packages/core/`) → the package folder URL it was built from. */
  readonly packages: ReadonlyMap<string, string>;
}

/** `current.json`: the build to load and the state of every file it was built from. */
interface Manifest {
  format: number;
  workspace: string;
  build: string;
  /** Specifier → file, relative to the build folder. */
  entries: Record<string, string>;
  main: string;
  /** Workspace-relative package folders (`packages/core`), also the bundle subfolders. */
  packages: string[];
  /** Workspace-relative file, size, mtime (ms) of every input, package.json and tsconfig. */
  inputs: [string, number, number][];
}

/**
 * The current build when it matches the sources (every input's size and modification time as
 * recorded, checked with one `stat` each), else undefined. Never throws: a missing, foreign,
 * damaged or stale cache only means loading the sources.
 */
export function findSourceBundles(options: SourceBundleOptions): SourceBundles | undefined {
  try {
    const folder = bundleFolder(options);
    if (folder === undefined) return undefined;
    const manifest = JSON.parse(readFileSync(join(folder, "current.json"), "utf8")) as Manifest;
    if (manifest.format !== FORMAT || manifest.workspace !== options.workspace) return undefined;
    // ~580 files: a plain concatenation, as `path.join` per file doubles the loop's time.
    const root = options.workspace.endsWith(sep) ? options.workspace : options.workspace + sep;
    for (const [file, size, mtimeMs] of manifest.inputs) {
      const stat = statSync(root + file, { throwIfNoEntry: false });
      if (stat?.size !== size || stat.mtimeMs !== mtimeMs) return undefined;
    }
    const build = join(folder, manifest.build);
    const url = (file: string) => pathToFileURL(join(build, file)).href;
    if (!existsSync(join(build, manifest.main))) return undefined;
    return {
      // Maps, not records: a specifier such as `constructor` must not find Object.prototype's.
      entries: new Map(Object.entries(manifest.entries).map(([specifier, file]) => [specifier, url(file)])),
      main: url(manifest.main),
      root: `${pathToFileURL(build).href}/`,
      packages: new Map(
        manifest.packages.map((pkg) => [`${pkg}/`, `${pathToFileURL(join(options.workspace, pkg)).href}/`]),
      ),
    };
  } catch {
    return undefined;
  }
}

/**
 * Resolves the workspace packages to their bundles (registered after the source hooks, so it is
 * asked first). A bare import inside a bundle resolves from the package folder it was built from
 * (its dependencies are there, not in the cache); an `@agentkit/...` import anywhere, an agent's
 * included, gets the bundle, so there is one instance of each package.
 */
export function registerSourceBundleHooks(bundles: SourceBundles): void {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const entry = bundles.entries.get(specifier);
      if (entry !== undefined) return { url: entry, format: "module", shortCircuit: true };
      const parent = context.parentURL;
      if (parent?.startsWith(bundles.root) && !specifier.startsWith(".") && !specifier.startsWith("node:")) {
        const rest = parent.slice(bundles.root.length);
        const pkg = rest.slice(0, rest.indexOf("/", rest.indexOf("/") + 1) + 1);
        const from = bundles.packages.get(pkg);
        if (from !== undefined) return nextResolve(specifier, { ...context, parentURL: `${from}package.json` });
      }
      return nextResolve(specifier, context);
    },
  });
}

export interface BuildSourceBundlesOptions extends SourceBundleOptions {
  /** Stops the build (esbuild's service is stopped; nothing is published). */
  signal?: AbortSignal;
}

/** What `buildSourceBundles` did. */
export type SourceBundleBuild =
  | { built: true; ms: number }
  | { built: false; reason: "busy" | "changed" | "aborted" | "unbundleable"; detail?: string };

/**
 * Bundles every workspace package that has `@agentkit/source` exports (one bundle per entry,
 * shared code in chunks, dependencies and other packages left as imports) plus the CLI's main
 * module, into a new build folder, and makes it current. One build at a time per workspace (a
 * lock file naming the builder's pid); a source edited while it ran discards it.
 */
export async function buildSourceBundles(options: BuildSourceBundlesOptions): Promise<SourceBundleBuild> {
  const folder = bundleFolder(options);
  if (folder === undefined)
    return { built: false, reason: "unbundleable", detail: `${options.cacheDir} is not private` };
  mkdirSync(folder, { recursive: true, mode: 0o700 });
  const lock = join(folder, "build.lock");
  if (!takeLock(lock)) return { built: false, reason: "busy" };
  const started = Date.now();
  const t0 = performance.now();
  const build = `b-${started}-${process.pid}`;
  const staging = join(folder, `${build}.tmp`);
  try {
    const packages = bundledPackages(options.workspace);
    const bundled = await bundlePackages(packages, staging, options);
    if ("built" in bundled) return bundled;
    const inputs = recordInputs(options.workspace, bundled.inputs, started);
    if (typeof inputs === "string") return { built: false, reason: "changed", detail: inputs };
    if (options.signal?.aborted) return { built: false, reason: "aborted" };
    const { main, ...entries } = bundled.entries;
    if (main === undefined) return { built: false, reason: "unbundleable", detail: "no main module" };
    const manifest: Manifest = {
      format: FORMAT,
      workspace: options.workspace,
      build,
      entries,
      main,
      packages: packages.map((pkg) => pkg.dir),
      inputs,
    };
    renameSync(staging, join(folder, build));
    writeFileSync(join(folder, "current.json.tmp"), JSON.stringify(manifest), { mode: 0o600 });
    renameSync(join(folder, "current.json.tmp"), join(folder, "current.json"));
    pruneBuilds(folder, build);
    return { built: true, ms: Math.round(performance.now() - t0) };
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(lock, { force: true });
  }
}

/**
 * esbuild over every package into `staging` (the packages at once): each entry's file, relative
 * to the build folder, and every file the bundles were made from (workspace-relative); or why
 * there is nothing to publish.
 */
async function bundlePackages(
  packages: { dir: string; entries: PackageEntry[] }[],
  staging: string,
  options: BuildSourceBundlesOptions,
): Promise<{ entries: Record<string, string>; inputs: Set<string> } | SourceBundleBuild> {
  const esbuild = await import("esbuild");
  const { keepClassNames, PACKAGE_BUNDLE_OPTIONS } = await import("./package-bundle.ts");
  if (options.signal?.aborted) return { built: false, reason: "aborted" };
  const onAbort = () => void esbuild.stop();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  // Besides what esbuild reads: the shared tsconfig and the files that decide how it bundles.
  const inputs = new Set<string>([
    "tsconfig.base.json",
    join("apps", "dev-server", "src", "source-bundles.ts"),
    join("apps", "dev-server", "src", "package-bundle.ts"),
  ]);
  const entries: Record<string, string> = {};
  const problems: string[] = [];
  try {
    // Settled, not raced: one package's failure must not remove the staging folder while the
    // others' builds are still writing into it.
    const built = await Promise.allSettled(
      packages.map(async (pkg) => {
        const result = await esbuild.build({
          absWorkingDir: options.workspace,
          entryPoints: pkg.entries.map((entry) => entry.source),
          outbase: join(pkg.dir, "src"),
          outdir: join(staging, pkg.dir),
          outExtension: { ".js": ".mjs" },
          ...PACKAGE_BUNDLE_OPTIONS,
          logLevel: "silent",
          plugins: [sourceUrlPlugin],
        });
        problems.push(...keepClassNames(result.metafile, options.workspace));
        for (const input of Object.keys(result.metafile.inputs)) inputs.add(input);
        inputs.add(join(pkg.dir, "package.json"));
        inputs.add(join(pkg.dir, "tsconfig.json"));
        for (const entry of pkg.entries)
          entries[entry.specifier] = join(pkg.dir, relative(join(pkg.dir, "src"), entry.source)).replace(
            /\.ts$/,
            ".mjs",
          );
      }),
    );
    for (const result of built) if (result.status === "rejected") throw result.reason;
  } catch (error) {
    if (options.signal?.aborted) return { built: false, reason: "aborted" };
    return { built: false, reason: "unbundleable", detail: error instanceof Error ? error.message : String(error) };
  } finally {
    options.signal?.removeEventListener("abort", onAbort);
    // esbuild's service process would otherwise idle beside the server for its whole life. The
    // build is the only user of esbuild in the CLI's process (one build at a time, by the lock).
    await esbuild.stop();
  }
  if (problems.length > 0) return { built: false, reason: "unbundleable", detail: problems.join("; ") };
  return { entries, inputs };
}

/**
 * Each input's size and modification time, as the manifest records them (a package without its
 * own tsconfig.json is skipped); or the first input changed since the build began, whose bundle
 * may hold either version.
 */
function recordInputs(workspace: string, inputs: Set<string>, started: number): Manifest["inputs"] | string {
  const recorded: Manifest["inputs"] = [];
  for (const file of [...inputs].sort()) {
    const stat = statSync(join(workspace, file), { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.mtimeMs >= started - 1) return file;
    recorded.push([file, stat.size, stat.mtimeMs]);
  }
  return recorded;
}

/** One entry to bundle: the specifier it answers and its source file (workspace-relative). */
interface PackageEntry {
  specifier: string;
  source: string;
}

/**
 * The workspace's packages with `@agentkit/source` exports (packages/*), and the CLI itself
 * (apps/dev-server, entry `main`): workspace-relative folders and entries.
 */
function bundledPackages(workspace: string): { dir: string; entries: PackageEntry[] }[] {
  const found: { dir: string; entries: PackageEntry[] }[] = [];
  for (const name of readdirSync(join(workspace, "packages")).sort()) {
    const dir = join("packages", name);
    const pkgFile = join(workspace, dir, "package.json");
    if (!existsSync(pkgFile)) continue;
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8")) as { name: string; exports?: Record<string, unknown> };
    const entries: PackageEntry[] = [];
    for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
      const source = (target as Record<string, unknown> | null)?.["@agentkit/source"];
      if (typeof source === "string" && source.endsWith(".ts"))
        entries.push({ specifier: `${pkg.name}${subpath.slice(1)}`, source: join(dir, source) });
    }
    if (entries.length > 0) found.push({ dir, entries });
  }
  const cli = join("apps", "dev-server");
  found.push({ dir: cli, entries: [{ specifier: "main", source: join(cli, "src", "main.ts") }] });
  return found;
}

/**
 * `import.meta.url` in a bundle would name the bundle in the cache; each module's own URL is
 * written in its place, so paths relative to a source file (assets, `createRequire`) resolve
 * as they do from the sources. Any other use of `import.meta` fails the build (sources it is).
 */
const sourceUrlPlugin: Plugin = {
  name: "agentkit-source-url",
  setup(build) {
    build.onLoad({ filter: /\.[cm]?ts$/ }, ({ path }) => {
      const text = readFileSync(path, "utf8");
      if (!text.includes("import.meta")) return { contents: text, loader: "ts" };
      const replaced = text.replace(/\bimport\.meta\.url\b/g, JSON.stringify(pathToFileURL(path).href));
      if (/\bimport\.meta\b/.test(replaced)) throw new Error(`${path}: import.meta other than import.meta.url`);
      return { contents: replaced, loader: "ts" };
    });
  },
};

/**
 * The folder of one workspace's builds (its name and a hash of its path, so checkouts never
 * share), inside the cache folder when that is private; else undefined.
 */
function bundleFolder(options: SourceBundleOptions): string | undefined {
  const cache = privateDir(options.cacheDir);
  return cache && join(cache, `${basename(options.workspace)}-${fnv1a(options.workspace)}`);
}

/** FNV-1a (32 bits, hex) of a path: a folder name, not a secret (node:crypto costs ~6 ms to load). */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** Creates the lock file with our pid; a lock whose process is gone is taken over. */
function takeLock(lock: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lock, "wx", 0o600);
      writeFileSync(fd, String(process.pid));
      closeSync(fd);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
      const pid = Number(readFileSync(lock, "utf8"));
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) return false;
      rmSync(lock, { force: true });
    }
  }
  return false;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes builds older than the newest few, and staging folders a killed builder left. */
function pruneBuilds(folder: string, current: string): void {
  const builds = readdirSync(folder)
    .filter((name) => name.startsWith("b-") && name !== current)
    .sort((a, b) => Number(b.split("-")[1]) - Number(a.split("-")[1]));
  builds.forEach((name, i) => {
    if (name.endsWith(".tmp") || i >= KEEP_OLD_BUILDS) rmSync(join(folder, name), { recursive: true, force: true });
  });
}
