import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { extname, isAbsolute, relative, sep } from "node:path";
import { ReferenceProblem } from "./load-context.js";
import { taggedFileUrl } from "./module-hooks.js";

/** Imports a module by URL; the default is the runtime's own `import()`. */
export type ImportModule = (url: string) => Promise<unknown>;

export interface ModuleImporterOptions {
  /** Root of the sources; files under it map to the same relative path in each build output dir. */
  sourceDir: string;
  /** Directories holding compiled JavaScript of `sourceDir` (e.g. `dist`); searched in order. */
  buildOutputDirs: readonly string[];
  importModule?: ImportModule;
}

const COMPILED_EXT: Readonly<Record<string, string>> = { ".ts": ".js", ".mts": ".mjs", ".cts": ".cjs" };

/**
 * Imports agent modules: a source file, or its compiled counterpart when a build output dir
 * holds one (`<out>/<path relative to sourceDir>` with `.ts` → `.js`). Under a reload tag the
 * URL carries the tag, so the module (and, through the resolve hook, its local imports) is
 * evaluated afresh instead of coming from the module cache.
 */
export class ModuleImporter {
  private readonly options: ModuleImporterOptions;
  private readonly importModule: ImportModule;

  constructor(options: ModuleImporterOptions) {
    this.options = options;
    this.importModule = options.importModule ?? ((url) => import(url));
  }

  /** The file that will really be imported for this source file. */
  runtimeFileFor(file: string): string {
    const rel = relative(this.options.sourceDir, file);
    if (!rel || rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) return file;
    const ext = extname(rel);
    const compiledRel = COMPILED_EXT[ext] ? rel.slice(0, -ext.length) + COMPILED_EXT[ext] : rel;
    for (const dir of this.options.buildOutputDirs) {
      const candidate = `${dir}${sep}${compiledRel}`;
      if (existsSync(candidate)) return candidate;
    }
    return file;
  }

  /** Imports a file (its compiled counterpart when there is one) under the reload tag. */
  async importFile(
    file: string,
    tag: string | undefined,
  ): Promise<{ file: string; namespace: Record<string, unknown> }> {
    const runtimeFile = this.runtimeFileFor(file);
    const namespace = (await this.importModule(taggedFileUrl(runtimeFile, tag))) as Record<string, unknown>;
    return { file: runtimeFile, namespace };
  }

  /**
   * Imports a bare package specifier (`@scope/pkg/sub`) as resolved from a file's folder (the
   * user's node_modules, not the server's). `check` may refuse the file it resolves to (a
   * `ReferenceProblem` names why).
   */
  async importPackage(
    specifier: string,
    fromFile: string,
    check: (file: string) => string | undefined,
  ): Promise<Record<string, unknown>> {
    let target = specifier;
    let resolved: string | undefined;
    try {
      resolved = createRequire(fromFile).resolve(specifier);
    } catch {
      // Packages without a require-compatible export: let import() resolve the bare name.
    }
    if (resolved !== undefined) {
      const problem = check(resolved);
      if (problem) throw new ReferenceProblem(problem);
      target = taggedFileUrl(resolved, undefined);
    }
    return (await this.importModule(target)) as Record<string, unknown>;
  }
}
