// The module hooks of the `source` runtime (bin/agentkit.mjs): the workspace packages'
// TypeScript sources run on Node's own TypeScript support, with no tsx. Loaded by the bin
// before anything else, under Node's type stripping: node builtins only, erasable syntax only.
import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { type LoadHookSync, type ResolveHookSync, registerHooks, stripTypeScriptTypes } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface SourceHooksOptions {
  /** Where compiled files are kept between processes; undefined: compile in memory every time. */
  cacheDir?: string | undefined;
  /**
   * File URL prefixes (ending in `/`) of folders of packages (`<root><package>/`) with no symbolic
   * links and no `node_modules` below a package's own (the workspace's packages and apps). There
   * the hook answers a `./x.js` → `./x.ts` import without Node's resolution (its `realpath`
   * would find nothing to follow), and resolves each bare import (`zod`, `@agentkit/core`) once
   * per package, not once per importing file. Elsewhere (agents) Node resolves every import, so
   * a file reached through a linked folder stays one module.
   */
  linkFreeRoots?: readonly string[];
}

/**
 * Registers the in-thread hooks (`module.registerHooks`) that let plain Node run the sources:
 * - resolve: adds the `@agentkit/source` export condition (workspace packages resolve to their
 *   `src/*.ts`), and maps a relative `./x.js` imported by a `.ts` module to `./x.ts` when that
 *   file exists (what tsc-style sources write);
 * - load (registered when the first TypeScript module outside node_modules is resolved): ES
 *   module TypeScript outside node_modules is compiled here, not by Node, so syntax that
 *   needs a transform (parameter properties, enums, namespaces) works: erasable files are
 *   stripped (positions unchanged, so stack traces stay right), the others transformed, with an
 *   inline source map. The output is cached on disk (one entry per file, checked against the
 *   file's content), so a start after the first reads files instead of compiling them all again
 *   (about 1.5 s for the workspace).
 */
export function registerSourceHooks(options: SourceHooksOptions = {}): void {
  const cacheDir = options.cacheDir !== undefined ? privateDir(options.cacheDir) : undefined;
  const linkFreeRoots = options.linkFreeRoots ?? [];
  // Bare imports from the link-free packages, by specifier, package and conditions.
  const bareResolved = new Map<string, { url: string; format?: string | null | undefined; shortCircuit: true }>();
  const resolveSource: ResolveHookSync = (specifier, context, nextResolve) => {
    const conditions = context.conditions.includes("@agentkit/source")
      ? context.conditions
      : [...context.conditions, "@agentkit/source"];
    const sibling = tsSibling(specifier, context.parentURL);
    const linkFreePackage = packageFolder(sibling ?? context.parentURL, linkFreeRoots);
    // Half of the start-up's resolutions (818 of 1,676), at ~0.1 ms each through Node.
    if (sibling !== undefined && linkFreePackage !== undefined) return { url: sibling, shortCircuit: true };
    if (sibling !== undefined) return nextResolve(sibling, { ...context, conditions });
    // A dependency's imports of its own files (416 more): the same shortcut.
    const own = fileOfSamePackage(specifier, context.parentURL);
    if (own !== undefined) return { url: own, shortCircuit: true };
    // 114 more, ~0.4 ms each through Node (exports, node_modules walk, realpath of the link).
    const key =
      linkFreePackage !== undefined && isBare(specifier)
        ? `${specifier}\0${linkFreePackage}\0${conditions.join()}`
        : undefined;
    const known = key === undefined ? undefined : bareResolved.get(key);
    if (known) return known;
    const result = nextResolve(specifier, { ...context, conditions });
    if (key !== undefined) bareResolved.set(key, { url: result.url, format: result.format, shortCircuit: true });
    return result;
  };
  const load: LoadHookSync = (url, context, nextLoad) => {
    const result = nextLoad(url, context);
    if (result.format !== "module-typescript" || url.includes("/node_modules/") || result.source == null) return result;
    const source = typeof result.source === "string" ? result.source : utf8.decode(result.source);
    const output = compileCached(source, url, cacheDir);
    // A transformed file's lines move, so its stack frames need its inline source map: Node's
    // source maps go on before it compiles. Not earlier: with them on, Node searches every module
    // it loads for a map (zod's and the other dependencies' included), and stripped files keep
    // their positions.
    if (!process.sourceMapsEnabled && output.includes(INLINE_SOURCE_MAP)) process.setSourceMapsEnabled(true);
    return { format: "module", source: output, shortCircuit: true };
  };
  // The load hook goes on when the first TypeScript module outside node_modules is resolved, not
  // before: with a load hook, Node reads every module through it (zod's and the dependencies'
  // too), which costs a start 10-20 ms, and a start from the bundle cache (source-bundles.ts)
  // loads no TypeScript until an agent's.
  let compiling = false;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const result = resolveSource(specifier, context, nextResolve);
      if (!compiling && TYPESCRIPT_URL.test(result.url) && !result.url.includes("/node_modules/")) {
        compiling = true;
        registerHooks({ load });
      }
      return result;
    },
  });
}

/**
 * The `dist` runtime's hook (bin/agentkit.mjs): resolution only, the built packages load as Node
 * loads them. The same shortcuts as the source runtime's for what it resolves at start-up (~780
 * resolutions, about 100 ms through Node): a dependency's `./x.js` of its own regular files, and
 * each bare import from a workspace package once per package. Everything else (agents, links,
 * `exports` of dependencies) goes through Node's resolution.
 */
export function registerDistHooks(options: Pick<SourceHooksOptions, "linkFreeRoots"> = {}): void {
  const linkFreeRoots = options.linkFreeRoots ?? [];
  const bareResolved = new Map<string, { url: string; format?: string | null | undefined; shortCircuit: true }>();
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const own = fileOfSamePackage(specifier, context.parentURL);
      if (own !== undefined) return { url: own, shortCircuit: true };
      const linkFreePackage = isBare(specifier) ? packageFolder(context.parentURL, linkFreeRoots) : undefined;
      if (linkFreePackage === undefined) return nextResolve(specifier, context);
      const key = `${specifier}\0${linkFreePackage}\0${context.conditions.join()}`;
      const known = bareResolved.get(key);
      if (known) return known;
      const result = nextResolve(specifier, context);
      bareResolved.set(key, { url: result.url, format: result.format, shortCircuit: true });
      return result;
    },
  });
}

const utf8 = new TextDecoder();
/** How the transform's output starts its source map comment. */
const INLINE_SOURCE_MAP = "//# sourceMappingURL=data:";
/** A file URL of a TypeScript module (`.ts`, `.mts`, `.cts`; a query or hash may follow). */
const TYPESCRIPT_URL = /^file:.*\.[cm]?ts(?:[?#]|$)/;

/** The package folder (`<root><name>/`) of a URL under one of the roots. */
function packageFolder(url: string | undefined, roots: readonly string[]): string | undefined {
  if (url === undefined) return undefined;
  const root = roots.find((r) => url.startsWith(r));
  const end = root === undefined ? -1 : url.indexOf("/", root.length);
  return end === -1 ? undefined : url.slice(0, end + 1);
}

/**
 * `./x.js` (or `.mjs`, `.cjs`) imported by a file of an installed package, when it is a regular
 * file inside that same package: the file itself is what Node's resolution would answer, since
 * installed packages hold no symbolic links (npm and pnpm do not unpack them from a tarball, and
 * a linked package's files have their real path outside node_modules). A symbolic link, a path
 * leaving the package, or anything else goes to Node.
 */
function fileOfSamePackage(specifier: string, parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith("file:") || !(specifier.startsWith("./") || specifier.startsWith("../"))) return undefined;
  if (!/\.[cm]?js$/.test(specifier) || specifier.includes("%")) return undefined;
  const at = parentURL.lastIndexOf("/node_modules/");
  if (at === -1) return undefined;
  const [first, second] = parentURL.slice(at + "/node_modules/".length).split("/");
  if (!first || (first.startsWith("@") && !second)) return undefined;
  const packageFolder = `${parentURL.slice(0, at)}/node_modules/${first.startsWith("@") ? `${first}/${second}` : first}/`;
  const candidate = new URL(specifier, parentURL).href;
  if (!candidate.startsWith(packageFolder)) return undefined;
  return lstatSync(fileURLToPath(candidate), { throwIfNoEntry: false })?.isFile() ? candidate : undefined;
}

/** A package name or a package's `#import`: not relative, absolute or a URL (`node:fs`). */
function isBare(specifier: string): boolean {
  return !specifier.startsWith(".") && !specifier.startsWith("/") && !/^[a-z][a-z\d+.-]*:/i.test(specifier);
}

/** `./x.js` from a `.ts` module → `./x.ts` when it exists (also `.mjs` → `.mts`). */
function tsSibling(specifier: string, parentURL: string | undefined): string | undefined {
  if (!parentURL?.startsWith("file:") || !(specifier.startsWith("./") || specifier.startsWith("../"))) return undefined;
  const ext = specifier.endsWith(".js") ? ".js" : specifier.endsWith(".mjs") ? ".mjs" : undefined;
  if (!ext || parentURL.includes("/node_modules/") || !/\.[cm]?ts(\?|$)/.test(parentURL)) return undefined;
  const candidate = new URL(`${specifier.slice(0, -ext.length)}${ext === ".js" ? ".ts" : ".mts"}`, parentURL);
  return statSync(fileURLToPath(candidate), { throwIfNoEntry: false })?.isFile() ? candidate.href : undefined;
}

function compileCached(source: string, url: string, cacheDir: string | undefined): string {
  const path = fileURLToPath(url);
  // One entry per source file (overwritten when it changes, so the folder does not grow with
  // every edit), valid only for the very text it was compiled from. The cache folder is already
  // per Node version (its bundled compiler decides the output).
  const file = cacheDir && join(cacheDir, `${createHash("sha256").update(path).digest("hex")}.js`);
  const stamp = `// agentkit-source ${createHash("sha256").update(source).digest("hex")}\n`;
  if (file) {
    try {
      const cached = readFileSync(file, "utf8");
      if (cached.startsWith(stamp)) return cached.slice(stamp.length);
    } catch {
      // Not compiled yet.
    }
  }
  const output = compile(source, url);
  if (file) {
    try {
      // Whole files only: a concurrent start reads either the old entry or the new one.
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, stamp + output, { mode: 0o600 });
      renameSync(temp, file);
    } catch {
      // A read-only or full disk costs speed, not correctness.
    }
  }
  return output;
}

function compile(source: string, url: string): string {
  return withoutStripWarning(() => {
    try {
      try {
        return stripTypeScriptTypes(source, { mode: "strip" });
      } catch (error) {
        if ((error as { code?: string }).code !== "ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX") throw error;
        return stripTypeScriptTypes(source, { mode: "transform", sourceMap: true, sourceUrl: url });
      }
    } catch (error) {
      throw withLocation(error, url);
    }
  });
}

/**
 * The compiler's syntax errors carry their line only in the stack's first line (`:12`); the
 * message, which is what an app's load error shows, gets the file and line.
 */
function withLocation(error: unknown, url: string): unknown {
  if ((error as { code?: string }).code !== "ERR_INVALID_TYPESCRIPT_SYNTAX") return error;
  const line = /^[^\n]*:(\d+)\n/.exec((error as Error).stack ?? "")?.[1];
  const where = `${fileURLToPath(url)}${line ? `:${line}` : ""}`;
  return Object.assign(new SyntaxError(`${(error as Error).message} (${where})`, { cause: error }), {
    code: "ERR_INVALID_TYPESCRIPT_SYNTAX",
  });
}

/**
 * `stripTypeScriptTypes` warns that it is experimental on first use; the runtime chose it on
 * purpose, and the warning would show on every start that compiles a changed file.
 */
function withoutStripWarning<T>(fn: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const message = typeof warning === "string" ? warning : warning.message;
    if (message.startsWith("stripTypeScriptTypes is an experimental feature")) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return fn();
  } finally {
    process.emitWarning = emitWarning;
  }
}

/**
 * The cache directory, created private to this user. Compiled files run as code, so a directory
 * another user could write to (a shared temp dir planted in advance) is not used at all.
 */
export function privateDir(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    const ownUid = process.getuid?.();
    if (!stat.isDirectory() || (ownUid !== undefined && stat.uid !== ownUid) || (stat.mode & 0o022) !== 0)
      return undefined;
    return dir;
  } catch {
    return undefined;
  }
}
