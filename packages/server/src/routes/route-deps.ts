import type { RunRateLimiter } from "../http/run-rate-limiter.js";
import type { ServerContext } from "../server-context.js";
import type { RunnerCache } from "../runs/runner-cache.js";
import type { RunTracker } from "../runs/run-tracker.js";
import type { SessionRunQueue } from "../runs/session-run-queue.js";
import type { ServerLogger } from "../server-logger.js";

/** What the built-in route modules share (internal; extra routers get the ServerContext). */
export interface RouteDeps {
  readonly context: ServerContext;
  readonly runners: RunnerCache;
  readonly queue: SessionRunQueue;
  readonly runs: RunTracker;
  /** Run starts per user and per app (`ServerLimits.runsPerUserPerMinute`, `runsPerAppPerMinute`). */
  readonly rateLimiter: RunRateLimiter;
  readonly logger: ServerLogger;
  /** Send unexpected errors' messages to clients (see `AgentServerOptions.exposeErrorMessages`). */
  readonly exposeErrorMessages: boolean;
  /** How long an SSE frame may wait for a client that stopped reading (`ServerLimits.sseWriteTimeoutMs`; 0: no limit). */
  readonly sseWriteTimeoutMs: number;
}
