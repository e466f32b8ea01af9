import { randomUUID } from "node:crypto";
import { Router, type Request } from "express";
import {
  createEvent,
  eventFromJson,
  InvalidJsonError,
  SessionNotFoundError,
  sessionToJson,
  sessionToJsonText,
  type Event,
  type GetSessionConfig,
} from "@agentkit/core";
import { HttpRequestError } from "../errors/server-errors.js";
import { checkRequestState, sanitizeImportedEvents } from "../http/client-state.js";
import {
  createSessionSchema,
  createSessionWithIdSchema,
  parseBody,
  patchSessionSchema,
} from "../http/request-schemas.js";
import { SessionRunQueue } from "../runs/session-run-queue.js";
import type { RouteDeps } from "./route-deps.js";
import { checkSessionKeyParams } from "../http/session-key-params.js";
import { sendJsonText } from "../http/send-json-text.js";

/** Sessions created by evaluation runs; hidden from the list like ADK does. */
export const EVAL_SESSION_PREFIX = "___eval___session___";

type SessionParams = { app: string; user: string; sid: string };

/** Session routes of http-api.md 4.2 and 4.3. */
export function sessionRoutes(deps: RouteDeps): Router {
  const router = checkSessionKeyParams(Router());
  const { sessionService } = deps.context;
  const base = "/apps/:app/users/:user/sessions";

  router.post(base, async (req, res) => {
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
  });

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
    const { sessions } = await sessionService.listSessions({ appName: app, userId: user });
    res.json(
      sessions.filter((s) => !s.id.startsWith(EVAL_SESSION_PREFIX)).map((s) => sessionToJson({ ...s, events: [] })),
    );
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
    await deps.queue.run(SessionRunQueue.keyOf(app, user, sid), () =>
      sessionService.deleteSession({ appName: app, userId: user, sessionId: sid }),
    );
    res.status(204).end();
  });

  router.patch(`${base}/:sid`, async (req, res) => {
    const { app, user, sid } = req.params as SessionParams;
    const { stateDelta } = parseBody(patchSessionSchema, req.body);
    checkRequestState(res, stateDelta, "stateDelta");
    const key = { appName: app, userId: user, sessionId: sid };
    // A state patch is a write like a run's: it takes the session's turn.
    const updated = await deps.queue.run(SessionRunQueue.keyOf(app, user, sid), async () => {
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
