import { existsSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** Where a code reference points: a module file or a package specifier, and an export of it. */
export type CodeTarget =
  | { kind: "file"; file: string; exportName: string }
  | { kind: "package"; specifier: string; exportName: string };

const MODULE_EXTENSIONS = [".ts", ".mts", ".js", ".mjs", ".cjs", ".cts"];
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const DOTTED = /^[A-Za-z_][\w]*(\.[A-Za-z_$][\w$]*)+$/;

/**
 * Parses a code reference:
 * - `./tools.ts#lookup` or `../shared/x.js#y`: a file relative to the referring YAML file
 *   (the extension may be omitted; `.js` finds a `.ts` source);
 * - `@scope/pkg#name` or `pkg/sub#name`: a package export, resolved from the YAML file's folder;
 * - `my_app.tools.lookup` (ADK's module path): `<agentsDir>/my_app/tools.ts` (or .js…), export `lookup`.
 * Returns a problem string when the reference cannot be located.
 */
export function parseCodeReference(reference: string, fromFile: string, agentsDir: string): CodeTarget | string {
  const hash = reference.lastIndexOf("#");
  if (hash >= 0) {
    const modulePart = reference.slice(0, hash);
    const exportName = reference.slice(hash + 1);
    if (!modulePart) return `"${reference}" names no module before "#"`;
    if (!IDENTIFIER.test(exportName)) return `"${reference}": "${exportName}" is not an export name`;
    if (modulePart.startsWith("./") || modulePart.startsWith("../") || modulePart.startsWith("/")) {
      const file = findModuleFile(resolve(dirname(fromFile), modulePart));
      return file
        ? { kind: "file", file, exportName }
        : `"${reference}": no module file ${modulePart} next to ${fromFile}`;
    }
    return { kind: "package", specifier: modulePart, exportName };
  }
  if (DOTTED.test(reference)) {
    const parts = reference.split(".");
    const exportName = parts.pop() as string;
    const base = join(agentsDir, ...parts);
    const file = findModuleFile(base);
    return file
      ? { kind: "file", file, exportName }
      : `"${reference}": no module ${parts.join("/")}.ts (or .js) in ${agentsDir}`;
  }
  return `"${reference}" is not a code reference: use "./file.ts#exportName", "package#exportName" or "app.module.exportName"`;
}

/** The file for a module path: as written, `.js` → `.ts`, or with a module extension added. */
function findModuleFile(path: string): string | undefined {
  if (isFile(path)) return path;
  const js = /\.([cm]?)js$/.exec(path);
  if (js) {
    const ts = `${path.slice(0, -js[0].length)}.${js[1]}ts`;
    if (isFile(ts)) return ts;
  }
  for (const ext of MODULE_EXTENSIONS) if (isFile(path + ext)) return path + ext;
  return undefined;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}
