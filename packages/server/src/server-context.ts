import type {
  BaseArtifactService,
  BaseMemoryService,
  BaseSessionService,
  Runner,
  SessionLockKey,
} from "@agentkit/core";
import type { AgentLoader } from "./agent-loader.js";

/**
 * What route modules share: the caller's services and the app loader, plus the runner of
 * each app (built once per loaded app, rebuilt after a reload). Routers take this instead of
 * reaching for globals, so several servers can live in one process (tests, embedders).
 */
export interface ServerContext {
  readonly loader: AgentLoader;
  readonly sessionService: BaseSessionService;
  readonly artifactService: BaseArtifactService;
  readonly memoryService: BaseMemoryService;
  /** The runner for an app; throws `AppNotFoundError` / `ConfigurationError` like the loader. */
  runnerFor(appName: string): Promise<Runner>;
  /**
   * Waits for the session's turn among the server's runs (in arrival order; then its cluster
   * lock, when the server has `sessionLock`); the returned function gives it back. Code that runs
   * a session outside the run routes (the A2A routes) takes turns with them through this, so two
   * runs never append to one session at once. Rejects with `RunAbortedError` when `signal`
   * aborts first, `SessionBusyError` when the cluster lock stays taken.
   */
  acquireSessionTurn(key: SessionLockKey, signal?: AbortSignal): Promise<() => void>;
}
