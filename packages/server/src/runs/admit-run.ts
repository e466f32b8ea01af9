import type { SessionLockKey } from "@agentkit/core";
import { ServerDrainingError } from "../errors/server-errors.js";
import type { RouteDeps } from "../routes/route-deps.js";
import { cutByShutdown } from "./run-tracker.js";

/**
 * Admits a run of the session that does not come through the run routes (the A2A routes) the
 * way those routes admit theirs (`prepareRun`): refused while the server shuts down
 * (`ServerDrainingError`) and past the app's and user's run rate limits; tracked from here, so
 * shutdown waits for it (up to its grace period) and then aborts `run`; then the session's turn
 * (and its cluster lock), so it never appends beside another run of the session. Resolves to the
 * function that ends it (gives the turn back, untracks it; a second call does nothing).
 */
export async function admitRun(deps: RouteDeps, key: SessionLockKey, run: AbortController): Promise<() => void> {
  if (deps.runs.isDraining) throw new ServerDrainingError();
  deps.rateLimiter.take(key.appName, key.userId);
  const untrack = deps.runs.start(run, { appName: key.appName, userId: key.userId, sessionId: key.sessionId });
  let release: () => void;
  try {
    release = await deps.queue.acquireSession(key, run.signal);
    if (deps.runs.isDraining) {
      release();
      throw new ServerDrainingError();
    }
  } catch (error) {
    untrack();
    // A wait for the session's turn cut by shutdown is the server draining, not a cancel.
    throw cutByShutdown(run.signal) ? new ServerDrainingError() : error;
  }
  return () => {
    release();
    untrack();
  };
}
