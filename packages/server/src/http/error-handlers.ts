import type { ErrorRequestHandler, RequestHandler, Response } from "express";
import { AgentKitError, SessionBusyError } from "@agentkit/core";
import { errorBody, statusForError } from "../errors/status-for-error.js";
import { HttpRequestError, ServerDrainingError } from "../errors/server-errors.js";
import { sendJson } from "./send-json.js";

/** Sends the JSON error body of http-api.md for any error (no stack traces, ever). */
export function sendError(res: Response, error: unknown, exposeMessages = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  setRetryAfter(res, error);
  sendJson(res, statusForError(error), errorBody(error, exposeMessages));
}

/** `Retry-After` for a refusal the client may retry later (rate limits, a busy session, shutdown). */
export function setRetryAfter(res: Response, error: unknown): void {
  const seconds =
    error instanceof HttpRequestError ? error.retryAfterSeconds : error instanceof SessionBusyError ? 1 : undefined;
  if (seconds !== undefined) res.setHeader("Retry-After", String(Math.max(1, Math.ceil(seconds))));
}

/** Body-parser and router failures (they carry `type` and/or a 4xx `status`) as typed errors. */
export function fromBodyParserError(error: unknown): HttpRequestError | undefined {
  if (typeof error !== "object" || error === null || error instanceof AgentKitError) return undefined;
  // The router could not decode a path parameter (`%E0%A4%A`).
  if (error instanceof URIError)
    return new HttpRequestError(400, "INVALID_URL", "The URL holds malformed percent-encoding.");
  const { type, status } = error as { type?: unknown; status?: unknown };
  switch (type) {
    case "entity.parse.failed":
      return new HttpRequestError(400, "INVALID_JSON", "Malformed JSON in the request body.");
    case "entity.too.large":
      return new HttpRequestError(413, "PAYLOAD_TOO_LARGE", "The request body is larger than the server's limit.");
    case "encoding.unsupported":
    case "charset.unsupported":
      return new HttpRequestError(
        415,
        "UNSUPPORTED_MEDIA_TYPE",
        "Unsupported body encoding or charset; send UTF-8 JSON.",
      );
    case "request.aborted":
    case "request.size.invalid":
    case "stream.encoding.set":
      return new HttpRequestError(400, "BAD_REQUEST", "The request body could not be read.");
    default:
      if (typeof status === "number" && status >= 400 && status < 500) {
        return new HttpRequestError(status, "BAD_REQUEST", "The request body could not be read.");
      }
      return undefined;
  }
}

/** Last middleware: every unmatched route is a JSON 404. */
export const notFoundHandler: RequestHandler = (req, res) => {
  const message = `Not found: ${req.method} ${req.path}`;
  res.status(404).json({ error: message, detail: message, code: "NOT_FOUND" });
};

/**
 * Error middleware: JSON bodies, statuses from error codes, unexpected errors logged (not the
 * 503 of a request refused or cut by shutdown: expected, and one per request while draining).
 */
export function errorHandler(log: (error: unknown) => void, exposeMessages = false): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    const known = fromBodyParserError(error) ?? error;
    if (statusForError(known) >= 500 && !(known instanceof ServerDrainingError)) log(error);
    sendError(res, known, exposeMessages);
  };
}
