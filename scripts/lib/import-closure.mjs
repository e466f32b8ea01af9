// What an entry point loads: the files and bare packages reachable from it through static value
// imports (type-only imports vanish at compile time; dynamic `import()` loads only when called).
// The tests use it to keep heavy or dev-only modules out of an entry that must stay lean.
import { resolve } from "node:path";
import { readFileSync } from "node:fs";
import { listSourceFiles, resolveRelative, staticImportsOf } from "./import-cycles.mjs";

/** `{ files, packages }` reachable from `entryFile` inside `packageDir`'s `src`. */
export function valueImportClosure(packageDir, entryFile) {
  const files = new Set(listSourceFiles(resolve(packageDir, "src")));
  const seen = new Set();
  const packages = new Set();
  const stack = [resolve(packageDir, entryFile)];
  while (stack.length > 0) {
    const file = stack.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    for (const { specifier, typeOnly } of staticImportsOf(readFileSync(file, "utf8"))) {
      if (typeOnly) continue;
      if (specifier.startsWith(".")) {
        const target = resolveRelative(file, specifier, files);
        if (target) stack.push(target);
      } else packages.add(specifier);
    }
  }
  return { files: [...seen], packages: [...packages] };
}
