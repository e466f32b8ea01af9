import { isDeepStrictEqual } from "node:util";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import { isUserScopedFilename } from "../artifacts/base-artifact-service.js";
import { SessionError, SessionNotFoundError } from "../errors/session-errors.js";
import { createEvent, newInvocationId, type Event } from "../events/event.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import { validateSessionKey } from "../sessions/session-key-validation.js";
import { artifactVersionsAt, sessionStateAt } from "../sessions/session-state-at.js";

export interface RewindRequest {
  userId: string;
  sessionId: string;
  /** The invocation to undo, with every invocation after it. */
  beforeInvocationId: string;
}

/** The services and app a rewind works on (a runner's, or the server's). */
export interface SessionHistoryServices {
  appName: string;
  sessionService: BaseSessionService;
  artifactService?: BaseArtifactService;
}

/**
 * What an artifact that did not exist at the rewind point becomes: an empty version (as ADK
 * does), so its history stays and a later rewind can bring a real version back.
 */
const EMPTY_ARTIFACT = { inlineData: { mimeType: "application/octet-stream", data: "" } };

/**
 * Rewinds a session to just before an invocation: appends one event (author `user`) whose
 * `actions.rewindBeforeInvocationId` hides that invocation and every later one from model
 * requests, whose `stateDelta` puts session-scoped state back as it was (see `sessionStateAt`),
 * and whose `artifactDelta` records, for every session artifact that changed since, a new version
 * holding the content it had then. The history itself is kept. `app:`/`user:` state and `user:`
 * artifacts are shared with other sessions and not rewound (as in ADK). Returns the rewind event.
 * Throws `SessionNotFoundError`, or `SessionError` with code `INVOCATION_NOT_FOUND`.
 */
export async function rewindSession(services: SessionHistoryServices, request: RewindRequest): Promise<Event> {
  const key = { appName: services.appName, userId: request.userId, sessionId: request.sessionId };
  validateSessionKey(key);
  const session = await services.sessionService.getSession(key);
  if (!session) throw new SessionNotFoundError(key);
  const index = session.events.findIndex((e) => e.invocationId === request.beforeInvocationId);
  if (index < 0) {
    throw new SessionError(
      `Invocation not found in session ${request.sessionId}: ${JSON.stringify(request.beforeInvocationId)}`,
      { code: "INVOCATION_NOT_FOUND" },
    );
  }
  const target = sessionStateAt(session.state, session.events, index);
  const stateDelta: Record<string, unknown> = {};
  for (const [k, value] of Object.entries(target)) {
    if (!Object.hasOwn(session.state, k) || !isDeepStrictEqual(session.state[k], value)) stateDelta[k] = value;
  }
  const artifactDelta = await restoreArtifacts(services, key, session.events, index);
  const event = createEvent({
    invocationId: newInvocationId(),
    author: "user",
    actions: { rewindBeforeInvocationId: request.beforeInvocationId, stateDelta, artifactDelta },
  });
  await services.sessionService.appendEvent({ session, event });
  return event;
}

/** Saves, for each session artifact changed at or after `index`, a version with its content then. */
async function restoreArtifacts(
  services: SessionHistoryServices,
  key: { appName: string; userId: string; sessionId: string },
  events: readonly Event[],
  index: number,
): Promise<Record<string, number>> {
  const changed = new Set<string>();
  for (const event of events.slice(index)) {
    for (const filename of Object.keys(event.actions?.artifactDelta ?? {})) {
      if (!isUserScopedFilename(filename)) changed.add(filename);
    }
  }
  const artifacts = services.artifactService;
  if (changed.size === 0 || !artifacts) return {};
  const then = artifactVersionsAt(events, index);
  const delta: Record<string, number> = {};
  for (const filename of [...changed].sort()) {
    const request = { ...key, filename };
    const versions = await artifacts.listVersions(request);
    const latest = versions.at(-1);
    const version = then.get(filename);
    if (latest === undefined || latest === version) continue;
    if (version === undefined) {
      delta[filename] = await artifacts.saveArtifact({ ...request, artifact: EMPTY_ARTIFACT });
      continue;
    }
    const part = await artifacts.loadArtifact({ ...request, version });
    // A version deleted since cannot be brought back: the artifact then reads empty.
    const meta = part ? await artifacts.getArtifactVersion({ ...request, version }) : undefined;
    delta[filename] = await artifacts.saveArtifact({
      ...request,
      artifact: part ?? EMPTY_ARTIFACT,
      ...(meta?.customMetadata ? { customMetadata: meta.customMetadata } : {}),
    });
  }
  return delta;
}
