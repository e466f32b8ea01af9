import { existsSync, statSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import {
  CONFIG_EXTENSIONS,
  fileProblem,
  isAbsoluteLike,
  MODULE_EXTENSIONS,
  packageProblem,
  placeProblem,
  type CodeScope,
} from "./code-scope.js";

/** Where a code reference points: a module file or a package specifier, and an export of it. */
export type CodeTarget =
  | { kind: "file"; file: string; exportName: string }
  | { kind: "package"; specifier: string; exportName: string };

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const DOTTED = /^[A-Za-z_][\w]*(\.[A-Za-z_$][\w$]*)+$/;

/**
 * Parses a code reference and checks it against the scope (see `CodeScope`):
 * - `./tools.ts#lookup` or `../_shared/x.js#y`: a file relative to the referring YAML file
 *   (the extension may be omitted; `.js` finds a `.ts` source);
 * - `@scope/pkg#name` or `pkg/sub#name`: a package export, resolved from the YAML file's folder;
 * - `my_app.tools.lookup` (ADK's module path): `<agentsDir>/my_app/tools.ts` (or .js…), export `lookup`.
 * Returns a problem string when the reference is refused or cannot be located.
 */
export function parseCodeReference(reference: string, fromFile: string, scope: CodeScope): CodeTarget | string {
  const located = locate(reference, fromFile, scope);
  if (typeof located === "string" || located.kind === "package") return located;
  const file = findModuleFile(located.path);
  if (!file) return located.missing;
  const problem = fileProblem(file, scope, MODULE_EXTENSIONS);
  return problem ? `"${reference}" ${problem}` : { kind: "file", file, exportName: located.exportName };
}

/**
 * The same checks without requiring the module to exist yet (the agent builder checks an
 * upload before the developer may have written the file it names). Undefined when it passes.
 */
export function codeReferenceProblem(reference: string, fromFile: string, scope: CodeScope): string | undefined {
  const located = locate(reference, fromFile, scope);
  if (typeof located === "string") return located;
  if (located.kind === "package") return undefined;
  const file = findModuleFile(located.path);
  const problem = file ? fileProblem(file, scope, MODULE_EXTENSIONS) : undefined;
  return problem ? `"${reference}" ${problem}` : undefined;
}

/** Why a `config_path` may not be loaded (it need not exist yet), or undefined. */
export function configPathProblem(configPath: string, fromFile: string, scope: CodeScope): string | undefined {
  if (isAbsoluteLike(configPath))
    return `"${configPath}" is an absolute path: write it relative to the YAML file (other.yaml)`;
  const problem = fileProblem(resolve(dirname(fromFile), configPath), scope, CONFIG_EXTENSIONS);
  return problem ? `"${configPath}" ${problem}` : undefined;
}

type Located =
  | { kind: "path"; path: string; exportName: string; missing: string }
  | { kind: "package"; specifier: string; exportName: string };

function locate(reference: string, fromFile: string, scope: CodeScope): Located | string {
  const hash = reference.lastIndexOf("#");
  if (hash >= 0) {
    const modulePart = reference.slice(0, hash);
    const exportName = reference.slice(hash + 1);
    if (!modulePart) return `"${reference}" names no module before "#"`;
    if (!IDENTIFIER.test(exportName)) return `"${reference}": "${exportName}" is not an export name`;
    if (isAbsoluteLike(modulePart))
      return `"${reference}" is an absolute path: write it relative to the YAML file (./tools.ts#${exportName})`;
    if (modulePart.startsWith("./") || modulePart.startsWith("../")) {
      const path = resolve(dirname(fromFile), modulePart);
      const problem = placeProblem(path, scope);
      if (problem) return `"${reference}" ${problem}`;
      return {
        kind: "path",
        path,
        exportName,
        missing: `"${reference}": no module file ${modulePart} next to ${fromFile}`,
      };
    }
    const problem = packageProblem(modulePart, scope);
    return problem ? `"${reference}" ${problem}` : { kind: "package", specifier: modulePart, exportName };
  }
  if (DOTTED.test(reference)) {
    const parts = reference.split(".");
    const exportName = parts.pop() as string;
    const path = join(scope.agentsDir, ...parts);
    const problem = placeProblem(path, scope);
    if (problem) return `"${reference}" ${problem}`;
    const missing = `"${reference}": no module ${parts.join("/")}.ts (or .js) in ${scope.agentsDir}`;
    return { kind: "path", path, exportName, missing };
  }
  return (
    `"${reference}" is not a code reference: use "./file.ts#exportName", "package#exportName" or ` +
    `"app.module.exportName"`
  );
}

/**
 * The module file for a path: as written, `.js` → `.ts`, or with a module extension added. A
 * file of another kind is returned last, so the caller refuses it by name.
 */
function findModuleFile(path: string): string | undefined {
  if (MODULE_EXTENSIONS.includes(extname(path)) && isFile(path)) return path;
  const js = /\.([cm]?)js$/.exec(path);
  if (js) {
    const ts = `${path.slice(0, -js[0].length)}.${js[1]}ts`;
    if (isFile(ts)) return ts;
  }
  for (const ext of MODULE_EXTENSIONS) if (isFile(path + ext)) return path + ext;
  return isFile(path) ? path : undefined;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
