import { once } from "node:events";
import type { Request, RequestHandler, Response } from "express";
import { Router } from "../http/express-module.js";
import { eventToJson, eventToJsonText, RunAbortedError, type Event } from "@agentkit/core";
import { sendJsonText } from "../http/send-json-text.js";
import { sendJson } from "../http/send-json.js";
import { principalOf } from "../auth/principal.js";
import { reasoningEngineUserOf } from "../auth/route-access.js";
import { validateSessionKey } from "@agentkit/core/internal";
import { errorBody, statusForError } from "../errors/status-for-error.js";
import {
  contentField,
  parseBody,
  reasoningEngineSchema,
  resumeRequestSchema,
  runRequestSchema,
} from "../http/request-schemas.js";
import { checkRequestState } from "../http/client-state.js";
import { ServerDrainingError } from "../errors/server-errors.js";
import { setRetryAfter } from "../http/error-handlers.js";
import { prepareRun, type RunParams } from "../runs/execute-run.js";
import { cutByShutdown } from "../runs/run-tracker.js";
import type { RouteDeps } from "./route-deps.js";

/**
 * POST /run, /run_sse (http-api.md 4.4, 4.5 and section 5), JS's /api/reasoning_engine, and
 * POST /apps/{app}/users/{user}/sessions/{sid}/resume (agentkit: continue an interrupted run).
 */
export function runRoutes(deps: RouteDeps): Router {
  const router = Router();

  router.post("/run", runHandler(deps));

  router.post("/run_sse", runSseHandler(deps));

  // Agent Engine style (adk-devtools): flat or under `input`, session auto-created.
  router.post("/api/reasoning_engine", async (req, res) => {
    const raw = req.body as { input?: unknown } | undefined;
    const input = raw && typeof raw === "object" && raw.input && typeof raw.input === "object" ? raw.input : raw;
    const body = parseBody(reasoningEngineSchema, input);
    // Without a userId the run is the authenticated principal's (else the "default-user" of the schema).
    const principal = principalOf(res);
    const userId = principal && reasoningEngineUserOf(req.body) === undefined ? principal.userId : body.userId;
    const params = { ...runParams(res, { ...body, userId }), createSessionIfMissing: true };
    await answering(
      deps,
      runToJson(deps, req, res, params, (list) => `{"output":${list}}`),
    );
  });

  // Continues the session's interrupted run in a resumable app (runner.resume): JSON like /run.
  router.post("/apps/:app/users/:user/sessions/:sid/resume", async (req, res) => {
    parseBody(resumeRequestSchema, req.body);
    const params: RunParams = {
      appName: req.params.app,
      userId: req.params.user,
      sessionId: req.params.sid,
      resume: true,
    };
    validateSessionKey(params);
    await runToJson(deps, req, res, params);
  });

  return router;
}

/** `POST /run` (http-api.md 4.4): the run's events as one JSON array. */
export function runHandler(deps: RouteDeps): RequestHandler {
  return async (req, res) => {
    const body = parseBody(runRequestSchema, req.body);
    await answering(deps, runToJson(deps, req, res, runParams(res, body)));
  };
}

/** `POST /run_sse` (http-api.md 4.5 and section 5): the run's events as SSE frames. */
export function runSseHandler(deps: RouteDeps): RequestHandler {
  return (req, res) => answering(deps, runToSse(deps, req, res));
}

/** The one mapping of a run request body (`/run`, `/run_sse`, `/api/reasoning_engine`) to a run. */
function runParams(
  res: Response,
  body: {
    appName: string;
    userId: string;
    sessionId: string;
    newMessage?: Record<string, unknown> | null | undefined;
    stateDelta?: Record<string, unknown> | null | undefined;
    streaming?: boolean | null | undefined;
    customMetadata?: Record<string, unknown> | null | undefined;
  },
): RunParams {
  const params: RunParams = { appName: body.appName, userId: body.userId, sessionId: body.sessionId };
  validateSessionKey(params);
  checkRequestState(res, body.stateDelta, "stateDelta");
  const message = contentField(body.newMessage, "newMessage");
  if (message) params.newMessage = message;
  if (body.stateDelta) params.stateDelta = body.stateDelta;
  if (body.streaming) params.streaming = true;
  if (body.customMetadata) params.customMetadata = body.customMetadata;
  return params;
}

/** `/run_sse`: the run's events as SSE frames; an error after the stream started is a last error frame. */
async function runToSse(deps: RouteDeps, req: Request, res: Response): Promise<void> {
  const body = parseBody(runRequestSchema, req.body);
  const controller = abortOnDisconnect(req, res);
  const run = await prepareRun(deps, runParams(res, body), controller);
  res.writeHead(200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  const stalled = () => {
    deps.logger.warn(
      `The /run_sse client read nothing for ${deps.sseWriteTimeoutMs} ms; its run is aborted`,
      undefined,
      run.fields,
    );
    controller.abort(new SseClientStalledError(deps.sseWriteTimeoutMs));
    res.destroy();
  };
  try {
    await run.execute((event) =>
      writeFrameText(res, eventToJsonText(event), controller.signal, deps.sseWriteTimeoutMs, stalled),
    );
  } catch (error) {
    // A run cut by shutdown ends with an error frame too: a clean end would read as a complete answer.
    const cut = cutByShutdown(controller.signal);
    if (!controller.signal.aborted || cut) {
      const reported = cut ? new ServerDrainingError() : error;
      if (!cut && statusForError(error) >= 500)
        deps.logger.error("Run failed after the SSE stream started", error, run.fields);
      const { error: message, code } = errorBody(reported, deps.exposeErrorMessages);
      // An error after the stream started is a frame with a string `error` (section 5.1).
      if (!res.destroyed) res.write(`data: ${JSON.stringify({ error: message, code })}\n\n`);
    }
  }
  res.end();
}

/** Lets shutdown wait for a run request's answer (errors are the route's: Express 5 gets them). */
function answering(deps: RouteDeps, answer: Promise<void>): Promise<void> {
  deps.runs.answering(answer);
  return answer;
}

/** Runs to completion and answers with the events as JSON (the user's own event excluded). */
async function runToJson(
  deps: RouteDeps,
  req: Request,
  res: Response,
  params: RunParams,
  /** Wraps the JSON text of the event list (Agent Engine's `{ "output": [...] }`). */
  wrapText?: (list: string) => string,
): Promise<void> {
  const controller = abortOnDisconnect(req, res);
  const run = await prepareRun(deps, { ...params, streaming: false }, controller);
  const events: Event[] = [];
  try {
    await run.execute((event) => {
      if (!event.partial) events.push(event);
    });
  } catch (caught) {
    // Cut by shutdown: a 503 with the events so far, so the client knows the answer is incomplete.
    const error = cutByShutdown(controller.signal) ? new ServerDrainingError() : caught;
    if (controller.signal.aborted && error instanceof RunAbortedError) return; // the client left
    if (statusForError(error) >= 500 && !(error instanceof ServerDrainingError))
      deps.logger.error("Run failed", error, run.fields);
    setRetryAfter(res, error);
    // Like adk-devtools: the error plus the events produced before it.
    sendJson(res, statusForError(error), {
      ...errorBody(error, deps.exposeErrorMessages),
      events: events.map(eventToJson),
    });
    return;
  }
  // Each event is serialized once, straight into the body.
  const list = `[${events.map(eventToJsonText).join(",")}]`;
  sendJsonText(res, wrapText ? wrapText(list) : list);
}

/**
 * An AbortController aborted when the client goes away before the response is complete (already
 * aborted when the connection closed before the handler asked).
 */
export function abortOnDisconnect(req: Request, res: Response): AbortController {
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new Error("The client disconnected."));
  };
  if (req.socket?.destroyed) {
    onClose();
    return controller;
  }
  res.once("close", onClose);
  req.once("aborted", onClose);
  return controller;
}

/** Why a `/run_sse` run was aborted when its client stopped reading (see `ServerLimits.sseWriteTimeoutMs`). */
class SseClientStalledError extends Error {
  constructor(ms: number) {
    super(`The client read nothing of the stream for ${ms} ms.`);
    this.name = "SseClientStalledError";
  }
}

/**
 * A frame whose JSON text is already written (events: `eventToJsonText`). When the socket's
 * buffer is full, waits for it to drain (back-pressure), at most `timeoutMs` (0: no limit):
 * past it `onStalled` gives up on the client.
 */
async function writeFrameText(
  res: Response,
  json: string,
  signal: AbortSignal,
  timeoutMs: number,
  onStalled: () => void,
): Promise<void> {
  if (signal.aborted || res.destroyed) return;
  if (res.write(`data: ${json}\n\n`)) return;
  const timer = timeoutMs > 0 ? setTimeout(onStalled, timeoutMs) : undefined;
  try {
    await once(res, "drain", { signal }).catch(() => {});
  } finally {
    clearTimeout(timer);
  }
}
