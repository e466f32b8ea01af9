import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { Router } from "../http/express-module.js";
import {
  createEvent,
  eventFromJson,
  forkSession,
  InvalidJsonError,
  rewindSession,
  SessionNotFoundError,
  sessionToJson,
  sessionToJsonText,
  type Event,
  type GetSessionConfig,
} from "@agentkit/core";
import { validateSessionKeyPart } from "@agentkit/core/internal";
import { HttpRequestError, ServerDrainingError } from "../errors/server-errors.js";
import { checkRequestState, sanitizeImportedEvents } from "../http/client-state.js";
import {
  createSessionSchema,
  createSessionWithIdSchema,
  forkSessionSchema,
  parseBody,
  patchSessionSchema,
  rewindSessionSchema,
} from "../http/request-schemas.js";
import type { RouteDeps } from "./route-deps.js";
import { checkSessionKeyParams } from "../http/session-key-params.js";
import { sendJsonText } from "../http/send-json-text.js";
import { abortOnDisconnect } from "./run-routes.js";

/** The response header of `GET .../sessions?pageSize=N` that carries the next page's token. */
export const NEXT_PAGE_TOKEN_HEADER = "X-Next-Page-Token";

/** Sessions created by evaluation runs; hidden from the list like ADK does. */
export const EVAL_SESSION_PREFIX = "___eval___session___";

type SessionParams = { app: string; user: string; sid: string };

/**
 * `POST /apps/{app}/users/{user}/sessions` (http-api.md 4.2): its `app` and `user` parameters
 * decoded and checked by the caller (the session router, or the hot routes).
 */
export function createSessionHandler(deps: RouteDeps): RequestHandler<{ app: string; user: string }> {
  const { sessionService } = deps.context;
  return async (req, res) => {
    const { app, user } = req.params;
    const body = parseBody(createSessionSchema, req.body);
    checkRequestState(res, body.state, "state", { initial: true });
    const events = sanitizeImportedEvents(res, parseImportedEvents(body.events ?? []));
    const session = await sessionService.createSession({
      appName: app,
      userId: user,
      ...(body.sessionId ? { sessionId: body.sessionId } : {}),
      ...(body.state ? { state: body.state } : {}),
    });
    for (const event of events) await sessionService.appendEvent({ session, event });
    const fresh =
      events.length > 0
        ? await sessionService.getSession({ appName: app, userId: user, sessionId: session.id })
        : session;
    sendJsonText(res, sessionToJsonText(fresh ?? session));
  };
}

/** Session routes of http-api.md 4.2 and 4.3. */
export function sessionRoutes(deps: RouteDeps): Router {
  const router = checkSessionKeyParams(Router());
  const { sessionService } = deps.context;
  const base = "/apps/:app/users/:user/sessions";

  router.post(base, createSessionHandler(deps));

  router.post(`${base}/:sid`, async (req, res) => {
    const { app, user, sid } = req.params;
    const body = parseBody(createSessionWithIdSchema, req.body);
    checkRequestState(res, body.state, "state", { initial: true });
    const session = await sessionService.createSession({
      appName: app,
      userId: user,
      sessionId: sid,
      ...(body.state ? { state: body.state } : {}),
    });
    sendJsonText(res, sessionToJsonText(session));
  });

  router.get(base, async (req, res) => {
    const { app, user } = req.params;
    // Always the bare array ADK's dev UI reads; paging only when asked, the next token in a header.
    const { sessions, nextPageToken } = await sessionService.listSessions({
      appName: app,
      userId: user,
      ...listPaging(req),
    });
    if (nextPageToken) res.setHeader(NEXT_PAGE_TOKEN_HEADER, nextPageToken);
    res.json(
      sessions.filter((s) => !s.id.startsWith(EVAL_SESSION_PREFIX)).map((s) => sessionToJson({ ...s, events: [] })),
    );
  });

  router.post(`${base}/:sid/rewind`, async (req, res) => {
    const { app, user, sid } = req.params as SessionParams;
    const { invocationId } = parseBody(rewindSessionSchema, req.body);
    const services = { appName: app, sessionService, artifactService: deps.context.artifactService };
    // A rewind writes the session like a run: it takes the session's turn.
    const session = await editSession(deps, req, res, { appName: app, userId: user, sessionId: sid }, async () => {
      await rewindSession(services, { userId: user, sessionId: sid, beforeInvocationId: invocationId! });
      return sessionService.getSession({ appName: app, userId: user, sessionId: sid });
    });
    if (!session) throw new SessionNotFoundError({ appName: app, userId: user, sessionId: sid });
    sendJsonText(res, sessionToJsonText(session));
  });

  router.post(`${base}/:sid/fork`, async (req, res) => {
    const { app, user, sid } = req.params as SessionParams;
    const body = parseBody(forkSessionSchema, req.body);
    if (body.newSessionId) validateSessionKeyPart(body.newSessionId, "sessionId");
    const services = { appName: app, sessionService, artifactService: deps.context.artifactService };
    // The source's turn, so the copy never sees half of a run's events.
    const fork = await editSession(deps, req, res, { appName: app, userId: user, sessionId: sid }, () =>
      forkSession(services, {
        userId: user,
        sessionId: sid,
        ...(body.eventId ? { eventId: body.eventId } : {}),
        ...(body.newSessionId ? { newSessionId: body.newSessionId } : {}),
      }),
    );
    const stored = await sessionService.getSession({ appName: app, userId: user, sessionId: fork.id });
    sendJsonText(res, sessionToJsonText(stored ?? fork));
  });

  router.get(`${base}/:sid`, async (req, res) => {
    const { app, user, sid } = req.params;
    const config = getSessionConfig(req);
    const session = await sessionService.getSession({
      appName: app,
      userId: user,
      sessionId: sid,
      ...(config ? { config } : {}),
    });
    if (!session) throw new SessionNotFoundError({ appName: app, userId: user, sessionId: sid });
    sendJsonText(res, sessionToJsonText(session));
  });

  router.delete(`${base}/:sid`, async (req, res) => {
    const { app, user, sid } = req.params;
    const key = { appName: app, userId: user, sessionId: sid };
    await editSession(deps, req, res, key, () => sessionService.deleteSession(key));
    res.status(204).end();
  });

  router.patch(`${base}/:sid`, async (req, res) => {
    const { app, user, sid } = req.params as SessionParams;
    const { stateDelta } = parseBody(patchSessionSchema, req.body);
    checkRequestState(res, stateDelta, "stateDelta");
    const key = { appName: app, userId: user, sessionId: sid };
    // A state patch is a write like a run's: it takes the session's turn.
    const updated = await editSession(deps, req, res, key, async () => {
      const session = await sessionService.getSession(key);
      if (!session) throw new SessionNotFoundError(key);
      const event = createEvent({ invocationId: `p-${randomUUID()}`, author: "user", actions: { stateDelta } });
      await sessionService.appendEvent({ session, event });
      return (await sessionService.getSession(key)) ?? session;
    });
    sendJsonText(res, sessionToJsonText(updated));
  });

  return router;
}

/**
 * Runs a session edit (state patch, delete, rewind, fork) in the session's turn, like a run:
 * refused with 503 `SHUTTING_DOWN` while the server shuts down (also when the turn comes after
 * shutdown began), and given up, never run, when the client disconnects while it waits.
 */
function editSession<T>(
  deps: RouteDeps,
  req: Request,
  res: Response,
  key: { appName: string; userId: string; sessionId: string },
  task: () => Promise<T>,
): Promise<T> {
  if (deps.runs.isDraining) throw new ServerDrainingError();
  const { signal } = abortOnDisconnect(req, res);
  return deps.queue.runSession(
    key,
    () => {
      if (deps.runs.isDraining) throw new ServerDrainingError();
      return task();
    },
    signal,
  );
}

function parseImportedEvents(raw: Record<string, unknown>[]): Event[] {
  return raw.map((item, i) => {
    try {
      const event = eventFromJson(item);
      delete event.partial;
      return event;
    } catch (error) {
      if (error instanceof InvalidJsonError)
        throw new HttpRequestError(400, "INVALID_REQUEST", `Invalid request body: events.${i}: ${error.message}`);
      throw error;
    }
  });
}

/** `pageSize` / `pageToken` (either casing) from the query string; absent means the whole list. */
function listPaging(req: Request): { pageSize?: number; pageToken?: string } {
  const q = req.query as Record<string, unknown>;
  const size = q.pageSize ?? q.page_size;
  const token = q.pageToken ?? q.page_token;
  if (token !== undefined && typeof token !== "string") {
    throw new HttpRequestError(400, "INVALID_REQUEST", "Invalid query parameter pageToken: expected one string");
  }
  const paging: { pageSize?: number; pageToken?: string } = {};
  if (size !== undefined) {
    const n = queryNumber(size, "pageSize", true);
    if (n < 1)
      throw new HttpRequestError(400, "INVALID_REQUEST", "Invalid query parameter pageSize: expected at least 1");
    paging.pageSize = n;
  }
  if (token) paging.pageToken = token;
  return paging;
}

/** `afterTimestamp` / `numRecentEvents` (either casing) from the query string. */
function getSessionConfig(req: Request): GetSessionConfig | undefined {
  const q = req.query as Record<string, unknown>;
  const after = q.afterTimestamp ?? q.after_timestamp;
  const recent = q.numRecentEvents ?? q.num_recent_events;
  const config: GetSessionConfig = {};
  if (after !== undefined) config.afterTimestamp = queryNumber(after, "afterTimestamp", false);
  if (recent !== undefined) config.numRecentEvents = queryNumber(recent, "numRecentEvents", true);
  return Object.keys(config).length > 0 ? config : undefined;
}

function queryNumber(value: unknown, field: string, integer: boolean): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
  if (!Number.isFinite(n) || (integer && (!Number.isInteger(n) || n < 0))) {
    throw new HttpRequestError(
      400,
      "INVALID_REQUEST",
      `Invalid query parameter ${field}: expected ${integer ? "a non-negative integer" : "a number"}, ` +
        `got ${JSON.stringify(value)}`,
    );
  }
  // Timestamps may come in milliseconds (JS clients); agentkit stores seconds.
  return !integer && n > 1e11 ? n / 1000 : n;
}
