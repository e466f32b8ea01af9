// Import cycles inside a package, as a check the tests run. A cycle of value imports makes module
// evaluation order matter (a class read before it is defined, a `const` in its TDZ); type-only
// imports (`import type`, `export type`, `{ type A }` clauses) vanish at compile time and may
// form cycles. Dynamic `import()` is lazy and never part of a cycle.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

export function listSourceFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listSourceFiles(p));
    else if (/\.(ts|tsx|mts)$/.test(name) && !/\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** The static imports and re-exports of a file, each marked type-only or not. */
export function staticImportsOf(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  const out = [];
  const re = /(?:^|[\s;])(import|export)\s+(type\s+)?([^'"`;]*?)\s*from\s*['"]([^'"]+)['"]/g;
  for (const m of code.matchAll(re)) {
    const clause = m[3].trim();
    let typeOnly = Boolean(m[2]);
    const braces = /^\{([\s\S]*)\}$/.exec(clause);
    if (!typeOnly && braces) {
      const names = braces[1]
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      typeOnly = names.length > 0 && names.every((n) => n.startsWith("type "));
    }
    out.push({ specifier: m[4], typeOnly });
  }
  for (const m of code.matchAll(/(?:^|[\s;])import\s*['"]([^'"]+)['"]/g))
    out.push({ specifier: m[1], typeOnly: false });
  return out;
}

export function resolveRelative(fromFile, specifier, files) {
  const base = resolve(dirname(fromFile), specifier);
  const candidates = [
    base,
    base.replace(/\.js$/, ".ts"),
    base.replace(/\.js$/, ".tsx"),
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
  ];
  return candidates.find((c) => files.has(c));
}

/** Value-import cycles (strongly connected components) among a package's src files. */
export function findValueCycles(dir) {
  const packageDir = resolve(dir);
  const files = new Set(listSourceFiles(join(packageDir, "src")));
  const edges = new Map();
  for (const file of files) {
    const targets = [];
    for (const { specifier, typeOnly } of staticImportsOf(readFileSync(file, "utf8"))) {
      if (typeOnly || !specifier.startsWith(".")) continue;
      const target = resolveRelative(file, specifier, files);
      if (target) targets.push(target);
    }
    edges.set(file, targets);
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const cycles = [];
  const visit = (v) => {
    indices.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indices.get(w)));
    }
    if (low.get(v) === indices.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      const selfLoop = component.length === 1 && (edges.get(v) ?? []).includes(v);
      if (component.length > 1 || selfLoop) cycles.push(component.map((f) => relative(packageDir, f)).sort());
    }
  };
  for (const v of files) if (!indices.has(v)) visit(v);
  return cycles;
}
