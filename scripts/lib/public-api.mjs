// The exported names of every published package entry (root and subpaths), value or type, read
// with the TypeScript compiler from the sources the entry points at. A test snapshots them so a
// change of a public surface is a visible, reviewed diff.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join, resolve } from "node:path";
import ts from "typescript";

/** Entries of the packages under `packages/`: `{ pkg, subpath, file }` (private packages skipped). */
export function publicEntries(repoRoot) {
  const out = [];
  for (const name of readdirSync(join(repoRoot, "packages")).sort()) {
    const dir = join(repoRoot, "packages", name);
    const file = join(dir, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8"));
    if (pkg.private || !pkg.exports) continue;
    for (const [subpath, target] of Object.entries(pkg.exports)) {
      const source = typeof target === "object" ? target["@agentkit/source"] : undefined;
      if (typeof source === "string" && /\.tsx?$/.test(source))
        out.push({ pkg: pkg.name, subpath, file: resolve(dir, source) });
    }
  }
  return out;
}

/** `{ "<pkg><subpath>": ["class Runner", "function createEvent", "type Event", ...] }`, sorted. */
export function readPublicApi(repoRoot) {
  const entries = publicEntries(repoRoot);
  const program = ts.createProgram(
    entries.map((e) => e.file),
    {
      target: ts.ScriptTarget.ES2023,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ["@agentkit/source"],
      noEmit: true,
      skipLibCheck: true,
      allowJs: false,
      types: [],
    },
  );
  const checker = program.getTypeChecker();
  const api = {};
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(entry.file);
    const moduleSymbol = sourceFile && checker.getSymbolAtLocation(sourceFile);
    const names = [];
    for (const symbol of moduleSymbol ? checker.getExportsOfModule(moduleSymbol) : []) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      names.push(`${kindOf(target.flags)} ${symbol.getName()}`);
    }
    api[`${entry.pkg}${entry.subpath === "." ? "" : entry.subpath.slice(1)}`] = names.sort((a, b) =>
      a.split(" ")[1].localeCompare(b.split(" ")[1]),
    );
  }
  return api;
}

function kindOf(flags) {
  const F = ts.SymbolFlags;
  if (flags & F.Class) return "class";
  if (flags & F.Function) return "function";
  if (flags & F.Enum) return "enum";
  if (flags & (F.Variable | F.ValueModule)) return "const";
  if (flags & F.Interface) return "interface";
  return "type";
}
