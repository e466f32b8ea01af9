import type { IncomingMessage } from "node:http";
import type { RequestHandler } from "express";
import { loadExpress } from "./express-module.js";
import { HttpRequestError } from "../errors/server-errors.js";
import { jsonDepthExceeds, jsonDepthVerifier } from "./body-guard.js";

export interface JsonBodyOptions {
  /** Largest body in bytes; larger gets 413. */
  limitBytes: number;
  /** Deepest `[`/`{` nesting accepted; deeper gets 400 `JSON_TOO_DEEP`. */
  maxDepth: number;
}

/** What body-parser's strict mode accepts as the first non-whitespace character. */
const STRICT_FIRST = /^[ \t\n\r]*[{[]/;
const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;

/**
 * The JSON body parser: `express.json` (strict, `limit`, the depth check) with a lean path for
 * what clients nearly always send, a `Content-Length` body of `application/json` in UTF-8 with no
 * content coding. That path reads the body with plain stream events: body-parser's reader creates
 * an `AsyncResource` per request (async-hooks bookkeeping on every body), checks the type with
 * type-is and mime-types and calls `debug` at each step. It answers exactly as body-parser does
 * (`{}` for an empty body, 400 `INVALID_JSON` for a non-object/array or malformed body, 400 for a
 * body that does not arrive whole); anything else (chunked, compressed, past the limit, other
 * charsets or media types, a finished request) goes to `express.json` itself.
 */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  // Made on the first body the lean path does not take (it loads Express).
  let fallback: RequestHandler | undefined;
  return (req, res, next) => {
    // No media type: `express.json` leaves the body unread and `req.body` undefined.
    if (untypedBodyLength(req) !== undefined) {
      if (!("body" in req)) (req as { body?: unknown }).body = undefined;
      return next();
    }
    const length = leanBodyLength(req);
    if (length === undefined || length > options.limitBytes) {
      fallback ??= loadExpress().json({
        limit: options.limitBytes,
        strict: true,
        verify: jsonDepthVerifier(options.maxDepth),
      });
      return fallback(req, res, next);
    }
    new LeanBodyRead(req, length, options.maxDepth, next);
  };
}

/**
 * One lean body read: its listeners are bound methods, not closures (this runs for nearly every
 * request with a body), removed once the body is in or the request fails.
 */
class LeanBodyRead {
  private readonly chunks: Buffer[] = [];
  private received = 0;
  private settled = false;

  constructor(
    private readonly req: IncomingMessage & { body?: unknown },
    private readonly length: number,
    private readonly maxDepth: number,
    private readonly next: (error?: unknown) => void,
  ) {
    this.onData = this.onData.bind(this);
    this.onEnd = this.onEnd.bind(this);
    this.onFailed = this.onFailed.bind(this);
    req.on("data", this.onData);
    req.on("end", this.onEnd);
    req.on("error", this.onFailed);
    req.on("close", this.onFailed);
  }

  onData(chunk: Buffer): void {
    this.received += chunk.length;
    this.chunks.push(chunk);
  }

  onEnd(): void {
    this.finish(this.received === this.length ? undefined : unreadable());
  }

  onFailed(): void {
    this.finish(unreadable());
  }

  /** Once: stop listening, then parse the body into `req.body`, or pass the error on. */
  private finish(error: HttpRequestError | undefined): void {
    if (this.settled) return;
    this.settled = true;
    const { req, chunks, received } = this;
    req.off("data", this.onData);
    req.off("end", this.onEnd);
    req.off("error", this.onFailed);
    req.off("close", this.onFailed);
    if (error) return void this.next(error);
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
    try {
      req.body = parseStrict(body, this.maxDepth);
    } catch (caught) {
      return void this.next(caught);
    }
    this.next();
  }
}

/**
 * The declared length of a body the lean path reads, or `undefined` when `express.json` should
 * handle the request (mirroring its own checks: a body, the JSON type, a UTF-8 charset, no coding).
 */
export function leanBodyLength(req: IncomingMessage): number | undefined {
  if (!isPlainJsonType(req.headers["content-type"])) return undefined;
  const length = plainContentLength(req);
  // body-parser leaves a finished request (or a half-closed socket) unparsed.
  const socket = req.socket as typeof req.socket | null;
  if (length === undefined || !socket?.readable || (req.complete && !req.readable)) return undefined;
  return length;
}

/**
 * The declared length of a request that names no media type (`POST` with no body, as `fetch`
 * sends it), which `express.json` leaves unparsed; `undefined` for anything else, or when a
 * content coding or chunked framing would make that less plain.
 */
export function untypedBodyLength(req: IncomingMessage): number | undefined {
  return req.headers["content-type"] === undefined ? plainContentLength(req) : undefined;
}

/** A `Content-Length` of digits, with no chunked framing and no content coding; else `undefined`. */
function plainContentLength({ headers }: IncomingMessage): number | undefined {
  const raw = headers["content-length"];
  if (typeof raw !== "string" || !/^\d+$/.test(raw)) return undefined;
  if (headers["transfer-encoding"] !== undefined || headers["content-encoding"] !== undefined) return undefined;
  return Number(raw);
}

function isPlainJsonType(type: string | undefined): boolean {
  if (type === undefined) return false;
  const lower = type.toLowerCase();
  return (
    lower === "application/json" ||
    lower === "application/json; charset=utf-8" ||
    lower === "application/json;charset=utf-8"
  );
}

/** body-parser's strict JSON: the depth check on the bytes, a leading BOM dropped, `{}` for nothing. */
function parseStrict(body: Buffer, maxDepth: number): unknown {
  if (jsonDepthExceeds(body, maxDepth)) {
    throw new HttpRequestError(
      400,
      "JSON_TOO_DEEP",
      `The JSON body is nested deeper than ${maxDepth} levels; flatten it.`,
    );
  }
  const bom = body.length >= 3 && body[0] === UTF8_BOM[0] && body[1] === UTF8_BOM[1] && body[2] === UTF8_BOM[2];
  const text = body.toString("utf8", bom ? 3 : 0);
  if (text.length === 0) return {};
  if (!STRICT_FIRST.test(text)) throw invalidJson();
  try {
    return JSON.parse(text);
  } catch {
    throw invalidJson();
  }
}

function invalidJson(): HttpRequestError {
  return new HttpRequestError(400, "INVALID_JSON", "Malformed JSON in the request body.");
}

function unreadable(): HttpRequestError {
  return new HttpRequestError(400, "BAD_REQUEST", "The request body could not be read.");
}
