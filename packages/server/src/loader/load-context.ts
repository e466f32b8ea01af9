import { isAbsolute, relative, sep } from "node:path";
import type { BaseCodeExecutor, BaseTool, BaseToolset, ModelRegistry } from "@agentkit/core";
import { AgentLoadError, describeError } from "./agent-load-error.js";
import type { BuilderPolicy } from "./builder-policy.js";
import { parseCodeReference } from "./code-reference.js";
import { resolvedPackageProblem, type CodeScope } from "./code-scope.js";
import type { ModuleImporter } from "./module-importer.js";

/** Where a YAML config names a built-in tool: relative paths in its `args` resolve against `baseDir`. */
export interface BuiltInToolContext {
  /** The folder of the YAML file that names the tool. */
  readonly baseDir: string;
}

/** Makes a built-in tool from a config's `args` (it may be async, so a heavy SDK is imported only when needed). */
export type BuiltInToolFactory = (
  args: Record<string, unknown> | undefined,
  context: BuiltInToolContext,
) => BaseTool | BaseToolset | Promise<BaseTool | BaseToolset>;

/**
 * A tool available by bare name in YAML configs: an instance, a factory taking the config's
 * `args`, or a `lazyBuiltInTool` (the module holding the tool is imported when a config first
 * names it).
 */
export type BuiltInTool = BaseTool | BaseToolset | BuiltInToolFactory | LazyBuiltInTool;

const LAZY_BUILT_IN = Symbol.for("agentkit.lazyBuiltInTool");

/** What a `lazyBuiltInTool` loads: an entry as it could have been given directly. */
type LoadedBuiltInTool = BaseTool | BaseToolset | BuiltInToolFactory;

/**
 * A built-in tool whose code loads when a config first names it; once loaded it is the entry
 * `load` resolved to (an instance, or a factory), with the same rules as one given directly.
 * Made by `lazyBuiltInTool`.
 */
export class LazyBuiltInTool {
  /** Recognized by this brand, not `instanceof`: two installs of this package may meet in one process. */
  readonly [LAZY_BUILT_IN] = true;
  private loaded: Promise<LoadedBuiltInTool> | undefined;
  private readonly loadEntry: () => Promise<LoadedBuiltInTool>;

  constructor(load: () => Promise<LoadedBuiltInTool>) {
    this.loadEntry = load;
  }

  /** The entry, loaded once (a failed load is tried again by the next config that names it). */
  load(): Promise<LoadedBuiltInTool> {
    if (!this.loaded) {
      this.loaded = this.loadEntry();
      this.loaded.catch(() => (this.loaded = undefined));
    }
    return this.loaded;
  }
}

/** True for a `lazyBuiltInTool` entry (of any copy of this package). */
export function isLazyBuiltInTool(entry: BuiltInTool): entry is LazyBuiltInTool {
  return typeof entry === "object" && LAZY_BUILT_IN in entry;
}

/**
 * A built-in tool offered by name without importing its package at start:
 * `lazyBuiltInTool(async () => (await import("my-tools")).searchTool)`. What `load` resolves to is
 * used as if it had been given directly: an instance (a config may not give it `args`) or a factory.
 */
export function lazyBuiltInTool(load: () => Promise<LoadedBuiltInTool>): LazyBuiltInTool {
  return new LazyBuiltInTool(load);
}

/**
 * A code executor available by bare name in YAML configs (`code_executor: BuiltInCodeExecutor`):
 * an instance, or a factory taking the config's `args` as a mapping (it may be async, so the
 * package that holds the executor is imported only when a config names it).
 */
export type BuiltInCodeExecutorEntry =
  | BaseCodeExecutor
  | ((
      args: Record<string, unknown> | undefined,
      context: BuiltInToolContext,
    ) => BaseCodeExecutor | Promise<BaseCodeExecutor>);

/** What loading one app needs: where files are, how to import them, and what it touched. */
export interface LoadContext {
  readonly agentsDir: string;
  /** The folder of the app being loaded. */
  readonly appDir: string;
  /** The reload tag of this load (undefined when reload is off). */
  readonly tag: string | undefined;
  readonly importer: ModuleImporter;
  readonly builtInTools: ReadonlyMap<string, BuiltInTool>;
  readonly builtInCodeExecutors: ReadonlyMap<string, BuiltInCodeExecutorEntry>;
  readonly modelRegistry?: ModelRegistry;
  /** What configs written through HTTP (the agent builder) may name. */
  readonly builderPolicy: BuilderPolicy;
  /** Records a file the app depends on (for change detection). */
  track(file: string): void;
}

/** A path for messages: relative to the agents dir's parent (`agents/a/root_agent.yaml`) when inside it. */
export function displayPath(agentsDir: string, file: string): string {
  const base = agentsDir.slice(0, Math.max(agentsDir.lastIndexOf(sep), 0)) || sep;
  const rel = relative(base, file);
  return rel && !rel.startsWith("..") && !isAbsolute(rel) ? rel.split(sep).join("/") : file;
}

/** An `AgentLoadError` for a file (and field). */
export function loadError(
  ctx: Pick<LoadContext, "agentsDir">,
  file: string,
  field: string | undefined,
  problem: string,
  cause?: unknown,
): AgentLoadError {
  return new AgentLoadError({
    file,
    displayFile: displayPath(ctx.agentsDir, file),
    field,
    problem: field ? `${field}: ${problem}` : problem,
    cause,
  });
}

/** The YAML file a value comes from, and whether the builder's rules apply to it (see builder-policy.ts). */
export interface ConfigSource {
  readonly file: string;
  readonly restricted: boolean;
}

/** Where the references of a config may point. */
export function scopeOf(ctx: Pick<LoadContext, "agentsDir" | "appDir">, restricted: boolean): CodeScope {
  return { agentsDir: ctx.agentsDir, appDir: ctx.appDir, restricted };
}

/** The export a code reference names, imported under the load's reload tag. Throws a `ReferenceProblem` on failure. */
export async function importReference(ctx: LoadContext, reference: string, from: ConfigSource): Promise<unknown> {
  const target = parseCodeReference(reference, from.file, scopeOf(ctx, from.restricted));
  if (typeof target === "string") throw new ReferenceProblem(target);
  let namespace: Record<string, unknown>;
  try {
    if (target.kind === "file") {
      const imported = await ctx.importer.importFile(target.file, ctx.tag);
      ctx.track(imported.file);
      namespace = imported.namespace;
    } else {
      namespace = await ctx.importer.importPackage(target.specifier, from.file, (file) =>
        resolvedPackageProblem(file, ctx.agentsDir),
      );
    }
  } catch (error) {
    if (error instanceof ReferenceProblem) throw new ReferenceProblem(`"${reference}" ${error.message}`);
    throw new ReferenceProblem(`"${reference}": cannot load the module: ${describeError(error)}`, error);
  }
  if (!(target.exportName in namespace)) {
    const names = Object.keys(namespace).filter((k) => k !== "__esModule");
    throw new ReferenceProblem(
      `"${reference}": the module has no export "${target.exportName}" (it exports: ${names.join(", ") || "nothing"})`,
    );
  }
  return namespace[target.exportName];
}

/** A code reference that does not resolve; the caller adds the file and field. */
export class ReferenceProblem extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "ReferenceProblem";
  }
}

/** Calls a factory export with ADK-style `args`: unnamed ones positionally, named ones as one trailing object. */
export async function callWithArgs(
  value: unknown,
  args: readonly { name?: string | undefined; value?: unknown }[],
  reference: string,
): Promise<unknown> {
  if (typeof value !== "function") throw new ReferenceProblem(`"${reference}" has args but is not a function or class`);
  const positional = args.filter((a) => a.name === undefined).map((a) => a.value);
  const named = args.filter((a) => a.name !== undefined);
  const callArgs = named.length ? [...positional, Object.fromEntries(named.map((a) => [a.name, a.value]))] : positional;
  return isClass(value)
    ? new (value as new (...a: unknown[]) => unknown)(...callArgs)
    : await (value as (...a: unknown[]) => unknown)(...callArgs);
}

/** True for `class X {}` (not for plain functions). */
export function isClass(value: unknown): boolean {
  return typeof value === "function" && /^class[\s{]/.test(Function.prototype.toString.call(value));
}

/** "a string", "an array", "a function", "null", "an object (Foo)" ... for messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "function") return isClass(value) ? `a class (${value.name || "anonymous"})` : "a function";
  if (typeof value === "object") {
    const ctor = (value as { constructor?: { name?: string } }).constructor?.name;
    return ctor && ctor !== "Object" ? `an object (${ctor})` : "a plain object";
  }
  return `a ${typeof value}`;
}
