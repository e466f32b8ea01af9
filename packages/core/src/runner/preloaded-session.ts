import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Session } from "../sessions/session.js";

/**
 * A run's session read by its caller just before the run, handed to the runner so that it does
 * not read it again. The server reads the session of every `/run` to check the request before
 * answering (a missing session is a 404, a refused answer to a pending call a 400, both before a
 * `/run_sse` stream starts); without the hand-over the runner read it a second time, one more
 * query per run on the SQL and MongoDB stores (a network round trip on PostgreSQL).
 *
 * Internal (a symbol no caller can name by accident): the session must be what the runner's
 * session service returned for this app, user and session, read while no other run of the
 * session could append (the server holds the session's turn from the read to the run). A
 * version that is stale anyway (another process wrote in between) fails the run's first append
 * with `StaleSessionError`, as a session the runner read itself would.
 */
const PRELOADED_SESSION: unique symbol = Symbol("agentkit.preloadedSession");

interface Preloaded {
  [PRELOADED_SESSION]?: Session;
}

/** The request, carrying `session` for the runner (a copy; the given request is not changed). */
export function withPreloadedSession<T extends { userId: string; sessionId: string }>(request: T, session: Session): T {
  return { ...request, [PRELOADED_SESSION]: session };
}

/**
 * The session a caller handed over with the request, if any. One that is not the request's
 * (another app, user or session) is a caller's bug: it throws instead of running on it.
 */
export function preloadedSession(request: { userId: string; sessionId: string }, appName: string): Session | undefined {
  const session = (request as Preloaded)[PRELOADED_SESSION];
  if (session === undefined) return undefined;
  if (session.appName !== appName || session.userId !== request.userId || session.id !== request.sessionId) {
    throw new ConfigurationError(
      `The session handed to the runner (${session.appName}/${session.userId}/${session.id}) is not the run's ` +
        `(${appName}/${request.userId}/${request.sessionId}).`,
    );
  }
  return session;
}
