import type { BaseArtifactService, BaseMemoryService, BaseSessionService, Runner } from "@agentkit/core";
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
}
