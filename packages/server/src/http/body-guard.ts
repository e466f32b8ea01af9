import type { IncomingMessage, ServerResponse } from "node:http";
import type { Request, RequestHandler, Response } from "express";
import { HttpRequestError } from "../errors/server-errors.js";
import { sendError } from "./error-handlers.js";

/** Bodies from this size on take a share of the in-flight budget; smaller ones never wait. */
export const LARGE_BODY_BYTES = 1024 * 1024;
/** What `Retry-After` suggests to a body refused for lack of budget, in seconds. */
const RETRY_AFTER_SECONDS = 2;

export interface BodyGuardOptions {
  /** The JSON body limit in bytes (a chunked body reserves this much). */
  bodyLimitBytes: number;
  /** Bytes of large bodies being read or handled at once, across requests. */
  maxBytesInFlight: number;
  /** Time to receive a body once the headers are in; 0 turns the deadline off. */
  bodyTimeoutMs: number;
}

/** Bytes reserved by large bodies being read or handled (what `maxBytesInFlight` bounds). */
export class BodyBudget {
  private used = 0;

  constructor(readonly capacity: number) {}

  get inFlight(): number {
    return this.used;
  }

  /** Reserves `bytes`; returns a release function (idempotent), or `undefined` when they do not fit now. */
  reserve(bytes: number): (() => void) | undefined {
    if (this.used + bytes > this.capacity) return undefined;
    this.used += bytes;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= bytes;
    };
  }
}

/**
 * First middleware for requests with a body. Large bodies (by Content-Length, or `bodyLimit`
 * when chunked) reserve their size from the shared budget until the response is done; one that
 * does not fit now is refused before a byte of it is read: 413 with `Retry-After` (the request
 * is too large for the server at this moment, and may fit later) and `Connection: close`. Every
 * body must arrive within `bodyTimeoutMs` of the headers, else 408 and the connection closes
 * (Node's own `requestTimeout` bounds the whole request too, but more loosely).
 */
export function bodyGuard(options: BodyGuardOptions, budget: BodyBudget): RequestHandler {
  return (req, res, next) => {
    const length = declaredLength(req.headers);
    if (length === 0) return next();
    const size = length ?? options.bodyLimitBytes;
    if (length !== undefined && length > options.bodyLimitBytes && req.is("application/json")) {
      // Refused at once: the JSON parser would first read (and discard) the whole body.
      refuseUnread(
        res,
        new HttpRequestError(413, "PAYLOAD_TOO_LARGE", "The request body is larger than the server's limit."),
      );
      return;
    }
    if (size >= LARGE_BODY_BYTES && size <= options.bodyLimitBytes) {
      const release = budget.reserve(size);
      if (!release) {
        res.setHeader("Retry-After", String(RETRY_AFTER_SECONDS));
        refuseUnread(
          res,
          new HttpRequestError(
            413,
            "TOO_MANY_LARGE_BODIES",
            `The server is reading too many large request bodies right now; retry in ${RETRY_AFTER_SECONDS} s.`,
          ),
        );
        return;
      }
      res.once("close", release);
    }
    if (options.bodyTimeoutMs > 0) {
      // Module functions, not closures: this runs for every request with a body.
      const timer = setTimeout(onBodyTimeout, options.bodyTimeoutMs, req, res);
      timer.unref();
      (req as TimedRequest)[BODY_TIMER] = timer;
      req.once("end", clearRequestTimer);
      res.once("close", clearResponseTimer);
    }
    next();
  };
}

/** Where a request's body deadline timer is kept, for the listeners that clear it. */
const BODY_TIMER = Symbol("agentkit.bodyTimer");
type TimedRequest = IncomingMessage & { [BODY_TIMER]?: NodeJS.Timeout };

function clearRequestTimer(this: IncomingMessage): void {
  clearTimeout((this as TimedRequest)[BODY_TIMER]);
}

function clearResponseTimer(this: ServerResponse): void {
  clearTimeout((this.req as TimedRequest)[BODY_TIMER]);
}

/** The body did not arrive within `bodyTimeoutMs`: 408, then the connection closes. */
function onBodyTimeout(req: Request, res: Response): void {
  if (req.complete) return;
  res.setHeader("Connection", "close");
  sendError(
    res,
    new HttpRequestError(408, "REQUEST_TIMEOUT", "The request body did not arrive in time; send it faster."),
  );
  // The rest of the body is not wanted: close once the answer is out (or at once if it cannot be sent).
  if (res.writableFinished || res.destroyed) req.socket.destroy();
  else res.once("finish", () => req.socket.destroy());
}

/** Answers a request whose body is not wanted, and closes the connection instead of reading it. */
function refuseUnread(res: Response, error: HttpRequestError): void {
  res.setHeader("Connection", "close");
  sendError(res, error);
  res.once("finish", () => res.req.socket.destroySoon());
}

/** The Content-Length of a request: `undefined` for a chunked body, 0 for none. */
function declaredLength(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers["content-length"];
  if (typeof raw === "string" && /^\d+$/.test(raw)) return Number(raw);
  return headers["transfer-encoding"] !== undefined ? undefined : 0;
}

/**
 * An `express.json` `verify` hook: refuses a body nested deeper than `maxDepth` (400
 * `JSON_TOO_DEEP`) before it is parsed. Parsing copes with deep nesting, but everything after
 * it (validation, cloning, stringifying for a store) recurses and would overflow the stack.
 */
export function jsonDepthVerifier(maxDepth: number): (req: unknown, res: unknown, body: Buffer) => void {
  return (_req, _res, body) => {
    if (jsonDepthExceeds(body, maxDepth)) {
      throw new HttpRequestError(
        400,
        "JSON_TOO_DEEP",
        `The JSON body is nested deeper than ${maxDepth} levels; flatten it.`,
      );
    }
  };
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** True when the JSON text's `[`/`{` nesting (outside strings) goes past `maxDepth`. */
export function jsonDepthExceeds(body: Uint8Array, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}
