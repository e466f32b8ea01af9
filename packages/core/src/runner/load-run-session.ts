import { SessionAlreadyExistsError, SessionNotFoundError } from "../errors/session-errors.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";

/**
 * The session a run works on. A missing one throws `SessionNotFoundError`, unless `autoCreate`
 * (`RunConfig.autoCreateSession`): then it is created, and a run that created it in between
 * wins (its session is used, not an error). The found session comes through one `then` of the
 * store's promise (an async frame here cost each run a promise and a turn more).
 */
export function loadRunSession(
  services: { appName: string; sessionService: BaseSessionService },
  userId: string,
  sessionId: string,
  autoCreate: boolean,
): Promise<Session> {
  const key = { appName: services.appName, userId, sessionId };
  if (autoCreate) return readOrCreateSession(services.sessionService, key);
  return services.sessionService.getSession(key).then((found) => found ?? notFound(key));
}

function notFound(key: { appName: string; userId: string; sessionId: string }): never {
  throw new SessionNotFoundError(key);
}

/**
 * The session, created when it is missing; when another writer (a concurrent request, another
 * process on the same store) creates it between the read and the create, that one is read. The
 * one "read, else create" of the code base: the runner's `autoCreateSession`, the server's
 * session-creating run routes, the A2A executor.
 */
export function readOrCreateSession(
  sessionService: BaseSessionService,
  key: { appName: string; userId: string; sessionId: string },
): Promise<Session> {
  return sessionService.getSession(key).then((found) => found ?? createOrRead(sessionService, key));
}

async function createOrRead(
  sessionService: BaseSessionService,
  key: { appName: string; userId: string; sessionId: string },
): Promise<Session> {
  try {
    return await sessionService.createSession(key);
  } catch (error) {
    if (!(error instanceof SessionAlreadyExistsError)) throw error;
    const again = await sessionService.getSession(key);
    if (!again) throw error;
    return again;
  }
}
