import { isUserScopedFilename } from "../artifacts/base-artifact-service.js";
import { SessionError, SessionNotFoundError } from "../errors/session-errors.js";
import type { Event } from "../events/event.js";
import { createEventActions } from "../events/event-actions.js";
import type { Session } from "../sessions/session.js";
import { validateSessionKey } from "../sessions/session-key-validation.js";
import { artifactVersionsAt, sessionStateAt } from "../sessions/session-state-at.js";
import { scopeOfKey } from "../sessions/state.js";
import type { SessionHistoryServices } from "./rewind-session.js";

export interface ForkRequest {
  userId: string;
  /** The session to copy. */
  sessionId: string;
  /** Copy the events up to and including this one; default: every event. */
  eventId?: string;
  /** The new session's id; generated when omitted (a taken id throws `SessionAlreadyExistsError`). */
  newSessionId?: string;
}

/**
 * Copies a session, up to an event, into a new session of the same user: the events (ids and
 * invocation ids kept, so a rewind works in the copy too), the session-scoped state as it was
 * after that event (see `sessionStateAt`), and every version of the session's artifacts up to
 * the one that event saw, so the copied events' `artifactDelta` versions load the same content.
 * `app:` and `user:` state and `user:` artifacts are shared already and left untouched: the
 * copied events' deltas are stored without their `app:`/`user:` keys, so replaying them cannot
 * move shared state back. Returns the new session (with its events). Throws
 * `SessionNotFoundError`, or `SessionError` with code `EVENT_NOT_FOUND`.
 */
export async function forkSession(services: SessionHistoryServices, request: ForkRequest): Promise<Session> {
  const key = { appName: services.appName, userId: request.userId, sessionId: request.sessionId };
  validateSessionKey(key);
  const source = await services.sessionService.getSession(key);
  if (!source) throw new SessionNotFoundError(key);
  let end = source.events.length;
  if (request.eventId !== undefined) {
    const at = source.events.findIndex((e) => e.id === request.eventId);
    if (at < 0) {
      throw new SessionError(`Event not found in session ${request.sessionId}: ${JSON.stringify(request.eventId)}`, {
        code: "EVENT_NOT_FOUND",
      });
    }
    end = at + 1;
  }
  const copied = source.events.slice(0, end).filter((e) => !e.partial);
  const fork = await services.sessionService.createSession({
    appName: services.appName,
    userId: request.userId,
    ...(request.newSessionId !== undefined ? { sessionId: request.newSessionId } : {}),
    state: sessionStateAt(source.state, source.events, end),
  });
  await copyArtifacts(services, source, fork.id, artifactVersionsAt(source.events, end));
  for (const event of copied)
    await services.sessionService.appendEvent({ session: fork, event: withoutSharedDelta(event) });
  return fork;
}

/** A copy of the event whose state delta keeps only session-scoped keys. */
function withoutSharedDelta(event: Event): Event {
  const delta = event.actions?.stateDelta ?? {};
  const own = Object.fromEntries(Object.entries(delta).filter(([k]) => scopeOfKey(k) === "session"));
  return { ...event, actions: { ...createEventActions(event.actions), stateDelta: own } };
}

/** Saves versions 0..v of each session artifact into the fork, in order, so version numbers match. */
async function copyArtifacts(
  services: SessionHistoryServices,
  source: Session,
  forkId: string,
  versions: Map<string, number>,
): Promise<void> {
  const artifacts = services.artifactService;
  if (!artifacts || versions.size === 0) return;
  const from = { appName: source.appName, userId: source.userId, sessionId: source.id };
  const to = { ...from, sessionId: forkId };
  for (const [filename, last] of [...versions].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (isUserScopedFilename(filename)) continue;
    const metas = await artifacts.listArtifactVersions({ ...from, filename });
    for (const meta of metas) {
      if (meta.version > last) break;
      const part = await artifacts.loadArtifact({ ...from, filename, version: meta.version });
      if (!part) continue;
      await artifacts.saveArtifact({
        ...to,
        filename,
        artifact: part,
        ...(meta.customMetadata ? { customMetadata: meta.customMetadata } : {}),
      });
    }
  }
}
