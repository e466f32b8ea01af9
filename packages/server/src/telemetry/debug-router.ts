import { Router, type Request, type Response } from "express";
import { HttpRequestError } from "../errors/server-errors.js";
import type { TraceSource } from "./trace-recorder.js";

export interface DebugRouterOptions {
  traces: TraceSource;
}

/**
 * The trace routes of http-api.md 4.8, with and without the `/dev/apps/:app` prefix (the app
 * segment is ignored, as in ADK): one event's model-call attributes, and a session's spans.
 */
export function createDebugRouter({ traces }: DebugRouterOptions): Router {
  const router = Router();
  const bySession = (req: Request, res: Response): void => {
    res.json(traces.spansForSession(String(req.params.sessionId)));
  };
  const byEvent = (req: Request, res: Response): void => {
    const attributes = traces.attributesForEvent(String(req.params.eventId));
    if (!attributes) throw new HttpRequestError(404, "TRACE_NOT_FOUND", "Trace not found");
    res.json(attributes);
  };
  // The session routes first: "session" would otherwise match as an event id.
  router.get("/debug/trace/session/:sessionId", bySession);
  router.get("/dev/apps/:app/debug/trace/session/:sessionId", bySession);
  router.get("/debug/trace/:eventId", byEvent);
  router.get("/dev/apps/:app/debug/trace/:eventId", byEvent);
  return router;
}
