import {
  type BaseCredentialService,
  App,
  Runner,
  type BaseArtifactService,
  type BaseMemoryService,
  type BasePlugin,
  type BaseSessionService,
  type ModelRegistry,
} from "@agentkit/core";
import type { AgentLoader, LoadedApp } from "../agent-loader.js";
import { HttpRequestError } from "../errors/server-errors.js";
import { sharedPlugin } from "./shared-plugin.js";
import { settleAll } from "@agentkit/core/internal";

export interface RunnerCacheOptions {
  loader: AgentLoader;
  sessionService: BaseSessionService;
  artifactService: BaseArtifactService;
  memoryService: BaseMemoryService;
  modelRegistry?: ModelRegistry;
  /** Where tools' credentials are kept (per app and user); default: each runner's own, in memory. */
  credentialService?: BaseCredentialService;
  /**
   * Added to every app's runner before the app's own plugins: observers (tracing) must see
   * every call, and a plugin that short-circuits a hook hides it from the plugins after it.
   */
  plugins?: readonly BasePlugin[];
  /** Called when closing a replaced runner fails (it is not rethrown: the new one serves). */
  onCloseError?: (error: unknown, appName: string) => void;
}

/** A runner checked out for one run; `release()` lets a replaced runner close once idle. */
export interface RunnerLease {
  readonly runner: Runner;
  readonly loaded: LoadedApp;
  release(): void;
}

interface Entry {
  readonly loaded: LoadedApp;
  readonly runner: Runner;
  active: number;
  retired: boolean;
}

/**
 * One Runner per LoadedApp object. The loader returns the same object while an app is
 * unchanged; a new object (after a reload) builds a new runner and retires the old one, which
 * closes as soon as its last run ends so in-flight runs finish on the code they started with.
 */
export class RunnerCache {
  private readonly entries = new Map<string, Entry>();
  private readonly retiredClosing = new Set<Promise<void>>();
  private readonly extraPlugins: BasePlugin[];
  private closed = false;

  constructor(private readonly options: RunnerCacheOptions) {
    // Extra plugins are shared by every runner and belong to the caller: runners must not close them.
    this.extraPlugins = (options.plugins ?? []).map(sharedPlugin);
  }

  /** The current runner of an app (no lease: for callers that do not run it). */
  async runnerFor(appName: string): Promise<Runner> {
    return (await this.entryFor(appName)).runner;
  }

  /**
   * The current runner plus a lease that keeps it open until released. A promise chain, not
   * async functions: the loader's promise and one `then` per request (two async layers cost a
   * run three promises and their microtask turns).
   */
  acquire(appName: string): Promise<RunnerLease> {
    let loading: Promise<LoadedApp>;
    try {
      loading = this.options.loader.loadApp(appName);
    } catch (error) {
      return Promise.reject(error); // a loader that throws instead of rejecting
    }
    return loading.then((loaded) => this.lease(this.entryOf(appName, loaded)));
  }

  private lease(entry: Entry): RunnerLease {
    entry.active += 1;
    let released = false;
    return {
      runner: entry.runner,
      loaded: entry.loaded,
      release: () => {
        if (released) return;
        released = true;
        entry.active -= 1;
        if (entry.retired && entry.active === 0) this.closeRetired(entry);
      },
    };
  }

  /** Closes every runner (waiting for none: the server drains runs before calling this). */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.entries.values()];
    this.entries.clear();
    await settleAll(
      [...entries.map((e) => e.runner.close()), ...this.retiredClosing],
      () => "Several runners failed to close",
    );
  }

  private async entryFor(appName: string): Promise<Entry> {
    return this.entryOf(appName, await this.options.loader.loadApp(appName));
  }

  /** The app's entry for what the loader gave: the current one, or a new runner that retires it. */
  private entryOf(appName: string, loaded: LoadedApp): Entry {
    const current = this.entries.get(appName);
    if (current && current.loaded === loaded) return current;
    if (this.closed) throw new HttpRequestError(503, "SHUTTING_DOWN", "The server is closed.");
    const entry: Entry = { loaded, runner: this.build(loaded), active: 0, retired: false };
    this.entries.set(appName, entry);
    if (current) {
      current.retired = true;
      if (current.active === 0) this.closeRetired(current);
    }
    return entry;
  }

  private build(loaded: LoadedApp): Runner {
    const { sessionService, artifactService, memoryService, modelRegistry, credentialService } = this.options;
    const services = {
      sessionService,
      artifactService,
      memoryService,
      ...(credentialService ? { credentialService } : {}),
    };
    if (loaded.app) {
      const app = loaded.app;
      const withPlugins =
        this.extraPlugins.length === 0
          ? app
          : new App({
              name: app.name,
              rootAgent: app.rootAgent,
              plugins: [...this.extraPlugins, ...app.plugins],
              eventsCompactionConfig: app.eventsCompactionConfig,
              contextCacheConfig: app.contextCacheConfig,
              modelRegistry: app.modelRegistry,
              budget: app.budget,
              prices: app.prices,
              // without it a resumable app's pauses were not resumed under the dev server's plugins
              resumability: app.resumability,
            });
      return new Runner({
        app: withPlugins,
        appName: loaded.name,
        ...services,
        modelRegistry: app.modelRegistry ?? modelRegistry,
      });
    }
    return new Runner({
      agent: loaded.rootAgent,
      appName: loaded.name,
      plugins: [...this.extraPlugins],
      ...services,
      modelRegistry,
    });
  }

  private closeRetired(entry: Entry): void {
    const closing = entry.runner
      .close()
      .catch((error: unknown) => this.options.onCloseError?.(error, entry.loaded.name));
    this.retiredClosing.add(closing);
    void closing.finally(() => this.retiredClosing.delete(closing));
  }
}
