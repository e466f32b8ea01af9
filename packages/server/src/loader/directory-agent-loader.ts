import { resolve, sep } from "node:path";
import {
  AgentKitError,
  ConfigurationError,
  exitLoopTool,
  isLlmAgent,
  type BaseAgent,
  type ModelRegistry,
} from "@agentkit/core";
import { validateAppName } from "@agentkit/core/internal";
import type { AgentLoader, LoadedApp } from "../agent-loader.js";
import { AppNotFoundError } from "../errors/server-errors.js";
import { describeError } from "./agent-load-error.js";
import { DEFAULT_BUILDER_POLICY, type BuilderPolicy } from "./builder-policy.js";
import { findAppEntry, isIgnoredFolderName, listAppFolders, type AppEntry } from "./app-discovery.js";
import { AppWatcher } from "./app-watcher.js";
import { listSourceFiles, sameSnapshot, takeSnapshot, type FileSnapshot } from "./file-snapshot.js";
import {
  displayPath,
  loadError,
  type BuiltInCodeExecutorEntry,
  type BuiltInTool,
  type LoadContext,
} from "./load-context.js";
import { loadModuleApp } from "./module-app.js";
import { addModuleHooksClient, removeModuleHooksClient, type ModuleHooksClient } from "./module-hooks.js";
import { ModuleImporter, type ImportModule } from "./module-importer.js";

/** Where the loader reports what it does; `console` fits. Every method is optional. */
export interface LoaderLogger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
}

export interface DirectoryAgentLoaderOptions {
  /** The agents directory: each subfolder holding an agent file is an app. */
  agentsDir: string;
  /** Reload an app on its next `loadApp` after one of its files changed (default false). */
  reload?: boolean;
  /**
   * With `reload`: how long the files of an app must stay unchanged before it reloads, in ms
   * (default 100), so an editor's multi-step save is read whole.
   */
  reloadDebounceMs?: number;
  /** Root of the agent sources, for `buildOutputDirs` (default: `agentsDir`). */
  sourceDir?: string;
  /**
   * Folders of compiled JavaScript mirroring `sourceDir` (e.g. `["dist"]`): an agent module or
   * code reference `<sourceDir>/x/agent.ts` loads `<dir>/x/agent.js` from the first that has it.
   */
  buildOutputDirs?: readonly string[];
  /** When given, string model names of loaded agents must match one of its patterns (checked at load). */
  modelRegistry?: ModelRegistry;
  /** Tools YAML configs may name bare, in addition to `exit_loop`. */
  builtInTools?: Readonly<Record<string, BuiltInTool>>;
  /**
   * Code executors YAML configs may name bare in `code_executor` (ADK's `BuiltInCodeExecutor`,
   * `UnsafeLocalCodeExecutor`, …); none by default, since they live outside the server package.
   */
  builtInCodeExecutors?: Readonly<Record<string, BuiltInCodeExecutorEntry>>;
  /**
   * What configs written through HTTP (the dev UI's agent builder, see builder-policy.ts) may
   * name: built-in code executors and tools that run nothing on this machine. Default: no code
   * executor, and `exit_loop` as the only built-in tool.
   */
  builderPolicy?: Partial<BuilderPolicy>;
  logger?: LoaderLogger;
  /** Imports a module URL; defaults to the runtime's `import()`. */
  importModule?: ImportModule;
}

interface AppState {
  entry: AppEntry;
  snapshot: FileSnapshot;
  /** Files outside the app folder the last load used (config_path targets, code references, imported modules). */
  extraFiles: Set<string>;
  outcome: { app: LoadedApp } | { error: unknown };
}

/** Creates the loader the dev server uses: apps from the subfolders of an agents directory. */
export function createDirectoryAgentLoader(options: DirectoryAgentLoaderOptions): AgentLoader {
  return new DirectoryAgentLoader(options);
}

class DirectoryAgentLoader implements AgentLoader {
  /** The agents directory (absolute); the dev server's builder and tests routes edit files in it. */
  readonly agentsDir: string;
  readonly builderPolicy: BuilderPolicy;
  private readonly reload: boolean;
  private readonly importer: ModuleImporter;
  private readonly builtInTools: ReadonlyMap<string, BuiltInTool>;
  private readonly builtInCodeExecutors: ReadonlyMap<string, BuiltInCodeExecutorEntry>;
  private readonly apps = new Map<string, AppState>();
  private readonly pending = new Map<string, Promise<LoadedApp>>();
  /** Files the resolve hook saw per reload tag (modules imported by an app's modules). */
  private readonly resolvedByTag = new Map<string, Set<string>>();
  private readonly hooksClient?: ModuleHooksClient;
  private readonly tagPrefix = `l${nextLoaderId++}.`;
  private readonly options: DirectoryAgentLoaderOptions;
  private loadCount = 0;
  private closed = false;
  /** With reload: which apps may have changed (no directory scan per run); absent without reload. */
  private readonly watcher: AppWatcher | undefined;

  constructor(options: DirectoryAgentLoaderOptions) {
    this.options = options;
    this.agentsDir = resolve(options.agentsDir);
    this.reload = options.reload ?? false;
    const sourceDir = resolve(options.sourceDir ?? this.agentsDir);
    const buildOutputDirs = (options.buildOutputDirs ?? []).map((d) => resolve(d));
    this.importer = new ModuleImporter({ sourceDir, buildOutputDirs, importModule: options.importModule });
    this.builtInTools = new Map<string, BuiltInTool>([
      ["exit_loop", exitLoopTool],
      ...Object.entries(options.builtInTools ?? {}),
    ]);
    this.builtInCodeExecutors = new Map(Object.entries(options.builtInCodeExecutors ?? {}));
    this.builderPolicy = {
      codeExecutors: [...(options.builderPolicy?.codeExecutors ?? DEFAULT_BUILDER_POLICY.codeExecutors)],
      tools: [...(options.builderPolicy?.tools ?? DEFAULT_BUILDER_POLICY.tools)],
    };
    // The hook is needed without reload too: it lets `./x.js` imports find `./x.ts` sources under
    // Node's type stripping. With reload it also re-imports the local modules of a reloaded app.
    const client: ModuleHooksClient = {
      roots: this.reload ? [this.agentsDir, sourceDir, ...buildOutputDirs] : [],
      ownsTag: (tag) => this.reload && tag.startsWith(this.tagPrefix),
      onResolved: (tag, file) => this.resolvedByTag.get(tag)?.add(file),
    };
    this.watcher = this.reload ? AppWatcher.start(this.agentsDir, options.reloadDebounceMs ?? 100) : undefined;
    if (this.reload && !this.watcher)
      this.log("warn", "cannot watch the agents directory: every load checks the app's files instead");
    if (addModuleHooksClient(client)) this.hooksClient = client;
    else if (this.reload)
      this.log(
        "warn",
        "module.registerHooks is unavailable: a reloaded app re-imports its entry module but not the modules it " +
          "imports",
      );
  }

  async listApps(): Promise<string[]> {
    this.assertOpen();
    return listAppFolders(this.agentsDir);
  }

  async loadApp(appName: string): Promise<LoadedApp> {
    this.assertOpen();
    const cached = this.apps.get(appName);
    if (cached && !this.reload) return unwrap(cached.outcome);
    if (cached && this.watcher) {
      // Nothing under the app folder (or shared code) changed: serve it without touching the disk.
      // Files outside the agents directory are not watched: such apps check them every time.
      const { check, waitMs } = this.watcher.take(appName);
      const outside = [...cached.extraFiles].some((f) => !f.startsWith(this.agentsDir + sep));
      if (!check && !outside) return unwrap(cached.outcome);
      if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
    const inFlight = this.pending.get(appName);
    if (inFlight) return inFlight;
    const promise = this.refresh(appName).finally(() => this.pending.delete(appName));
    this.pending.set(appName, promise);
    return promise;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watcher?.close();
    if (this.hooksClient) removeModuleHooksClient(this.hooksClient);
    await Promise.allSettled([...this.pending.values()]);
    this.apps.clear();
    this.resolvedByTag.clear();
  }

  /**
   * With reload: resolves once the loader has seen every file change made before the call, so a
   * load right after an edit serves the edited app (tests, tools that edit then load).
   */
  async settled(): Promise<void> {
    await this.watcher?.settled();
  }

  /** Loads the app, or returns the cached outcome when none of its files changed. */
  private async refresh(appName: string): Promise<LoadedApp> {
    if (
      appName !== appName.trim() ||
      appName.includes("/") ||
      appName.includes("\\") ||
      appName === "" ||
      isIgnoredFolderName(appName)
    ) {
      throw new AppNotFoundError(appName);
    }
    const appDir = resolve(this.agentsDir, appName);
    if (!appDir.startsWith(this.agentsDir + sep)) throw new AppNotFoundError(appName);
    const entry = await findAppEntry(appDir);
    if (!entry) {
      this.apps.delete(appName);
      throw new AppNotFoundError(appName, { cause: `no agent.ts, agent.js, index.ts or root_agent.yaml in ${appDir}` });
    }
    const treeFiles = this.reload ? await listSourceFiles(appDir) : [];
    const previous = this.apps.get(appName);
    if (previous && previous.entry.file === entry.file) {
      const current = await takeSnapshot([...treeFiles, ...previous.extraFiles]);
      if (sameSnapshot(current, previous.snapshot)) return unwrap(previous.outcome);
    }
    if (previous) this.log("info", `reloading app "${appName}" (its files changed)`);
    const snapshot = await takeSnapshot(treeFiles);
    const state = await this.load(appName, appDir, entry, snapshot);
    this.apps.set(appName, state);
    return unwrap(state.outcome);
  }

  private async load(appName: string, appDir: string, entry: AppEntry, snapshot: FileSnapshot): Promise<AppState> {
    const tag = this.reload ? `${this.tagPrefix}${++this.loadCount}` : undefined;
    const extraFiles = new Set<string>();
    const resolved = new Set<string>();
    if (tag) this.resolvedByTag.set(tag, resolved);
    const ctx: LoadContext = {
      agentsDir: this.agentsDir,
      appDir,
      tag,
      importer: this.importer,
      builtInTools: this.builtInTools,
      builtInCodeExecutors: this.builtInCodeExecutors,
      modelRegistry: this.options.modelRegistry,
      builderPolicy: this.builderPolicy,
      track: (file) => extraFiles.add(file),
    };
    for (const file of entry.shadowed)
      this.log(
        "warn",
        `${displayPath(this.agentsDir, file)} is ignored: app "${appName}" ` +
          `loads ${displayPath(this.agentsDir, entry.file)}`,
      );
    let outcome: AppState["outcome"];
    try {
      validateFolderName(ctx, appName, entry.file);
      const loaded =
        entry.kind === "yaml"
          ? // The YAML parser and config schemas load with the first YAML app, not at start-up.
            {
              rootAgent: await (await import("./yaml/yaml-agent-builder.js")).loadYamlAgent(ctx, entry.file),
              app: undefined,
              source: entry.file,
            }
          : await loadModuleApp(ctx, entry.file);
      if (entry.kind === "module") this.checkModels(ctx, loaded.rootAgent, loaded.source);
      if (loaded.app && loaded.app.name !== appName) {
        this.log(
          "warn",
          `app "${appName}": its App is named "${loaded.app.name}"; the server serves it as "${appName}" (the folder ` +
            `name)`,
        );
      }
      const app: LoadedApp = loaded.app
        ? { name: appName, rootAgent: loaded.rootAgent, app: loaded.app, source: loaded.source }
        : { name: appName, rootAgent: loaded.rootAgent, source: loaded.source };
      outcome = { app };
      this.log("debug", `loaded app "${appName}" from ${displayPath(this.agentsDir, loaded.source)}`);
    } catch (error) {
      outcome = {
        error:
          error instanceof AgentKitError ? error : loadError(ctx, entry.file, undefined, describeError(error), error),
      };
      this.log("warn", `app "${appName}" failed to load: ${(outcome.error as Error).message}`);
    }
    if (tag) this.resolvedByTag.delete(tag);
    for (const file of resolved) extraFiles.add(file);
    if (!this.reload) return { entry, snapshot, extraFiles: new Set(), outcome };
    const extras = [...extraFiles].filter((f) => !f.startsWith(appDir + sep));
    for (const [file, value] of await takeSnapshot(extras)) snapshot.set(file, value);
    return { entry, snapshot, extraFiles: new Set(extras), outcome };
  }

  /** With a model registry: every string model of a module's agent tree must resolve. */
  private checkModels(ctx: LoadContext, root: BaseAgent, source: string): void {
    const registry = this.options.modelRegistry;
    if (!registry) return;
    const visit = (agent: BaseAgent): void => {
      if (isLlmAgent(agent) && typeof agent.model === "string" && agent.model !== "" && !registry.has(agent.model)) {
        const known = registry.patterns().map(String).join(", ") || "(none)";
        throw loadError(
          ctx,
          source,
          undefined,
          `agent "${agent.name}" uses model "${agent.model}", which no registered pattern matches (known ` +
            `patterns: ${known})`,
        );
      }
      agent.subAgents.forEach(visit);
    };
    visit(root);
  }

  private assertOpen(): void {
    if (this.closed) throw new ConfigurationError("This agent loader is closed.");
  }

  private log(level: keyof LoaderLogger, message: string): void {
    this.options.logger?.[level]?.(`agentkit loader: ${message}`);
  }
}

let nextLoaderId = 1;

function unwrap(outcome: AppState["outcome"]): LoadedApp {
  if ("app" in outcome) return outcome.app;
  throw outcome.error;
}

/** The folder name is the app name in URLs and sessions, so it must be a valid app name. */
function validateFolderName(ctx: LoadContext, appName: string, file: string): void {
  try {
    validateAppName(appName);
  } catch (error) {
    throw loadError(
      ctx,
      file,
      undefined,
      `the folder name "${appName}" is not a valid app name: ${describeError(error)}`,
      error,
    );
  }
}
