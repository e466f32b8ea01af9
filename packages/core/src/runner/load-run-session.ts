import { SessionAlreadyExistsError, SessionNotFoundError } from "../errors/session-errors.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";

/**
 * The session a run works on. A missing one throws `SessionNotFoundError`, unless `autoCreate`
 * (`RunConfig.autoCreateSession`): then it is created, and a run that created it in between
 * wins (its session is used, not an error).
 */
export async function loadRunSession(
  services: { appName: string; sessionService: BaseSessionService },
  userId: string,
  sessionId: string,
  autoCreate: boolean,
): Promise<Session> {
  const key = { appName: services.appName, userId, sessionId };
  const found = await services.sessionService.getSession(key);
  if (found) return found;
  if (!autoCreate) throw new SessionNotFoundError(key);
  try {
    return await services.sessionService.createSession(key);
  } catch (error) {
    if (!(error instanceof SessionAlreadyExistsError)) throw error;
    const again = await services.sessionService.getSession(key);
    if (!again) throw error;
    return again;
  }
}
