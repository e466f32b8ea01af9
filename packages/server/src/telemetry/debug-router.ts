import type { Request, Response } from "express";
import { Router } from "../http/express-module.js";
import { isAdmin, principalOf } from "../auth/principal.js";
import { HttpRequestError } from "../errors/server-errors.js";
import type { TraceSource } from "./trace-recorder.js";

export interface DebugRouterOptions {
  traces: TraceSource;
}

/**
 * The trace routes of http-api.md 4.8, with and without the `/dev/apps/:app` prefix (the app
 * segment is ignored, as in ADK): one event's model-call attributes, and a session's spans.
 * When the server authenticates, a principal without the admin scope sees the traces of its
 * own user's runs only (another user's event is a 404, as if it did not exist).
 */
export function createDebugRouter({ traces }: DebugRouterOptions): Router {
  const router = Router();
  const ownerOf = (res: Response): { userId: string } | undefined => {
    const principal = principalOf(res);
    return principal && !isAdmin(principal) ? { userId: principal.userId } : undefined;
  };
  const bySession = (req: Request, res: Response): void => {
    res.json(traces.spansForSession(String(req.params.sessionId), ownerOf(res)));
  };
  const byEvent = (req: Request, res: Response): void => {
    const attributes = traces.attributesForEvent(String(req.params.eventId), ownerOf(res));
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
