import { realpathSync } from "node:fs";
import { isBuiltin } from "node:module";
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from "node:path";

/**
 * Where the code and config files a YAML config names may come from. The agents directory also
 * holds data that HTTP clients write (artifacts and sessions under `.agentkit/`, agent tests,
 * builder drafts), so a reference that could reach those would turn data into code: references
 * stay in the app's folder (and, for files the developer writes, the `_`-prefixed shared
 * folders), outside hidden folders and node_modules, and name module or YAML files only.
 */
export interface CodeScope {
  /** The agents directory (absolute). */
  readonly agentsDir: string;
  /** The folder of the app being loaded (absolute, directly under `agentsDir`). */
  readonly appDir: string;
  /**
   * The config was written through HTTP (the agent builder), or is reached from one through
   * `config_path`: only files of the app's own folder, no packages.
   */
  readonly restricted: boolean;
}

export const MODULE_EXTENSIONS: readonly string[] = [".ts", ".mts", ".cts", ".js", ".mjs", ".cjs"];
export const CONFIG_EXTENSIONS: readonly string[] = [".yaml", ".yml"];

/** True for `/x`, `C:\x`, `\\server\x`: absolute on any platform. */
export function isAbsoluteLike(path: string): boolean {
  return isAbsolute(path) || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * Why `path` (absolute, maybe without its extension yet) is not a place this scope may load
 * from, judged on the path as written (no file system access), or undefined when it may.
 */
export function placeProblem(path: string, scope: CodeScope): string | undefined {
  const rel = relative(scope.agentsDir, resolve(path));
  if (isOutside(rel)) return "leaves the agents directory";
  return segmentsProblem(rel.split(sep), scope, "");
}

/** `placeProblem`, plus the file's extension and where it really is once symbolic links are resolved. */
export function fileProblem(file: string, scope: CodeScope, extensions: readonly string[]): string | undefined {
  const lexical = placeProblem(file, scope);
  if (lexical) return lexical;
  const kinds = extensions.join(", ");
  if (!extensions.includes(extname(file))) return `is not a ${kindName(extensions)} (${kinds})`;
  // Symbolic links: the real file must stay in the real folder the path names, with the same rules.
  const top = relative(scope.agentsDir, resolve(file)).split(sep)[0] as string;
  const realRoot = realOrSelf(join(scope.agentsDir, top));
  const real = realOrSelf(file);
  const rel = relative(realRoot, real);
  const through = `resolves through a symbolic link to ${shownPath(real, scope.agentsDir)}, which`;
  if (isOutside(rel)) return `${through} is outside ${top}/`;
  const problem = segmentsProblem([top, ...rel.split(sep)], scope, `${through} `);
  if (problem) return problem;
  if (!extensions.includes(extname(real))) return `${through} is not a ${kindName(extensions)} (${kinds})`;
  return undefined;
}

/** Why a bare package specifier may not be imported in this scope, or undefined. */
export function packageProblem(specifier: string, scope: CodeScope): string | undefined {
  if (scope.restricted)
    return (
      "names a package: configs written through the agent builder may only reference files of their app folder " +
      "(./tools.ts#name)"
    );
  if (specifier.startsWith("node:") || isBuiltin(specifier))
    return "names a Node built-in module, which YAML configs may not reference";
  const segments = specifier.split("/");
  if (!BARE_PACKAGE.test(specifier) || segments.some((s) => s === "." || s === ".."))
    return (
      'is not a package name: write "package#export" or "@scope/package/subpath#export" (files start with ./ or ' +
      "../)"
    );
  return undefined;
}

/**
 * Why the file a package specifier resolved to may not be imported: inside the agents
 * directory it must be an installed package (under `node_modules/`), never the server's data.
 */
export function resolvedPackageProblem(file: string, agentsDir: string): string | undefined {
  const rel = relative(realOrSelf(agentsDir), realOrSelf(file));
  if (isOutside(rel) || rel.split(sep)[0] === "node_modules") return undefined;
  return `resolves to ${shownPath(file, agentsDir)}, which is not an installed package`;
}

/** A real path for messages: relative to the agents directory, never an absolute path of this machine. */
function shownPath(real: string, agentsDir: string): string {
  const rel = relative(realOrSelf(agentsDir), real);
  return isOutside(rel) ? "a file outside the agents directory" : rel.split(sep).join("/");
}

// A package name (`zod`, `@scope/pkg`), maybe followed by a subpath: no scheme, no leading `.` or `/`.
const BARE_PACKAGE = /^(?:@[A-Za-z0-9~][\w.~-]*\/)?[A-Za-z0-9~][\w.~-]*(?:\/[\w.~@+-]+)*$/;

function segmentsProblem(segments: string[], scope: CodeScope, prefix: string): string | undefined {
  const hidden = segments.find((s) => s.startsWith("."));
  if (hidden)
    return (
      `${prefix}is inside the hidden folder "${hidden}" (hidden folders such as .agentkit hold the server's ` +
      `data: sessions, artifacts)`
    );
  if (segments.includes("node_modules"))
    return `${prefix}is inside node_modules: reference a package by its name (package#export)`;
  const app = basename(scope.appDir);
  const [top] = segments;
  if (top === app && segments.length > 1) return undefined;
  if (scope.restricted)
    return (
      `${prefix}leaves the app folder ${app}/ (configs written through the agent builder may only reference ` +
      `files of their own app)`
    );
  if (top?.startsWith("_") && segments.length > 1) return undefined;
  return (
    `${prefix}leaves the app folder ${app}/ (code shared between apps belongs in a _-prefixed folder of the ` +
    `agents directory, such as _shared/)`
  );
}

function kindName(extensions: readonly string[]): string {
  return extensions === CONFIG_EXTENSIONS ? "YAML file" : "module file";
}

function isOutside(rel: string): boolean {
  return rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel);
}

/** The real path of a file, or of its nearest existing ancestor joined with the rest. */
export function realOrSelf(path: string): string {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(current), ...missing.reverse());
    } catch {
      const parent = dirname(current);
      if (parent === current) return resolve(path);
      missing.push(basename(current));
      current = parent;
    }
  }
}
