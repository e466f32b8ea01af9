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
   * Admits a run of the session made outside the run routes (the A2A routes do) as those routes
   * admit theirs: refused with `ServerDrainingError` while the server shuts down and with
   * `RateLimitedError` past the app's and user's run limits; counted among the server's runs
   * (shutdown waits for it up to its grace period, then aborts `run`); then it waits for the
   * session's turn (and its cluster lock, when the server has `sessionLock`), so it never
   * appends beside another run of the session. Aborting `run` while it waits rejects with
   * `RunAbortedError`. Resolves to the function to call when the run is over.
   */
  admitRun(key: SessionLockKey, run: AbortController): Promise<() => void>;
}
