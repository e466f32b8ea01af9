import type { App, BaseAgent } from "@agentkit/core";
import type { BuilderPolicy } from "./loader/builder-policy.js";

/** One app the server can run: its agent tree, plus the App when the module exported one. */
export interface LoadedApp {
  /** The app name (the agents-dir folder name). */
  readonly name: string;
  readonly rootAgent: BaseAgent;
  /** Set when the app's module exported an `App` (plugins, compaction, cache config, registry). */
  readonly app?: App;
  /** Where it came from (file path), for messages and the dev UI. */
  readonly source?: string;
}

/**
 * Where the server gets its apps. The server never reads files itself: the dev server passes
 * a directory loader, tests and embedders a static one.
 */
export interface AgentLoader {
  /** App names, sorted. */
  listApps(): Promise<string[]>;
  /**
   * The app, loaded (or reloaded when its files changed). Returns the same object while
   * nothing changed, so callers may cache per object. Throws `AppNotFoundError` for an unknown
   * app and `ConfigurationError` (naming the file and field) for a broken one.
   */
  loadApp(appName: string): Promise<LoadedApp>;
  /**
   * The directory apps are read from (absolute), when they come from one. In web mode the
   * server then serves the dev UI's builder and tests routes, which edit files there.
   */
  readonly agentsDir?: string;
  /**
   * With `agentsDir`: what configs written through HTTP (the agent builder) may name; the
   * builder checks uploads against it and the loader applies it to the files it wrote.
   */
  readonly builderPolicy?: BuilderPolicy;
  /**
   * A loader that watches files: resolves once every change made before the call has been seen
   * (so a load right after an edit serves the edited app).
   */
  settled?(): Promise<void>;
  /** Stops file watchers and releases what the loader holds. */
  close(): Promise<void>;
}
