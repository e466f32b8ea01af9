// How a package is bundled, shared by `pnpm build` (scripts/bundle-dist.mjs, from tsc's output)
// and the source runtime's bundle cache (source-bundles.ts, from the sources): the same esbuild
// options, and class names kept. Node strips this file itself when the build script imports it:
// builtins only, erasable syntax only.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BuildOptions } from "esbuild";

/** The esbuild options of a package bundle; callers add entries, folders and logging. */
export const PACKAGE_BUNDLE_OPTIONS = {
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node24",
  // Every bare import (dependencies, node: built-ins, other @agentkit packages) stays an import.
  packages: "external",
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: "linked",
  sourcesContent: false,
  // Not keepNames: it would add a `name` definition to every named closure, on every call. Class
  // names (user-visible: error names, agent_class in graphs, tool types in traces) are kept by
  // keepClassNames instead.
  keepNames: false,
  metafile: true,
} as const satisfies BuildOptions;

/** The part of esbuild's metafile read here: each output file and the inputs it holds. */
export interface BundleMetafile {
  outputs: Record<string, { inputs: Record<string, unknown> }>;
}

/**
 * esbuild writes a class whose body names itself as `var X = class _X {…}` (the inner name keeps
 * the class's own binding), which makes `X.name` "_X". Named `X` again, with its references,
 * the class is what the source declared; ` X` replaces `_X`, so source map columns still hold.
 * Rewrites the bundle's JavaScript outputs in place (paths in the metafile are relative to
 * `baseDir`, esbuild's working directory) and returns what it could not keep: a class renamed
 * because two files declare the same top-level name (`class X2`), or an inner name the sources
 * also use. An empty list means every class keeps its name.
 */
export function keepClassNames(metafile: BundleMetafile, baseDir = "."): string[] {
  const problems: string[] = [];
  for (const [output, { inputs }] of Object.entries(metafile.outputs)) {
    if (!/\.m?js$/.test(output)) continue;
    const outputPath = join(baseDir, output);
    let code = readFileSync(outputPath, "utf8");
    const sources = Object.keys(inputs)
      .map((input) => join(baseDir, input))
      .filter((input) => existsSync(input))
      .map((input) => readFileSync(input, "utf8"));
    const inSources = (pattern: string) => sources.some((source) => new RegExp(pattern).test(source));
    for (const [, outer, inner] of [...code.matchAll(/\b(?:var|let|const) ([A-Za-z$][\w$]*) = class (_\1\d*)\b/g)]) {
      const identifier = `(?<![\\w$.])${inner!.replaceAll("$", "\\$")}(?![\\w$])`;
      // Safe only if the inner name is esbuild's alone (no source file uses it).
      if (inSources(identifier)) problems.push(`${inner} in ${output} is also a name in the sources`);
      else code = code.replace(new RegExp(identifier, "g"), ` ${outer}`.padStart(inner!.length));
    }
    for (const [, declared, assigned] of code.matchAll(
      /\bclass ([A-Za-z$][\w$]*?\d+)\b|\b(?:var|let|const) ([A-Za-z$][\w$]*?\d+) = class\b/g,
    )) {
      const renamed = (declared ?? assigned)!;
      const base = renamed.replace(/\d+$/, "");
      if (inSources(`\\bclass ${base}\\b`) && !inSources(`\\bclass ${renamed}\\b`))
        problems.push(`class ${base} is ${renamed} in ${output} (two files declare it)`);
    }
    writeFileSync(outputPath, code);
  }
  return problems;
}
