import type { IncomingMessage } from "node:http";
import express, { type RequestHandler } from "express";
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
  const fallback = express.json({
    limit: options.limitBytes,
    strict: true,
    verify: jsonDepthVerifier(options.maxDepth),
  });
  return (req, res, next) => {
    const length = leanBodyLength(req);
    if (length === undefined || length > options.limitBytes) return fallback(req, res, next);
    // The read's state sits on the request and the listeners are module functions: no closures
    // per request (this runs for nearly every request with a body).
    (req as ReadingRequest)[BODY_READ] = { length, maxDepth: options.maxDepth, next, chunks: [], received: 0 };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onFailed);
    req.on("close", onFailed);
  };
}

/** A lean body read in progress. */
interface BodyRead {
  readonly length: number;
  readonly maxDepth: number;
  readonly next: (error?: unknown) => void;
  readonly chunks: Buffer[];
  received: number;
}

const BODY_READ = Symbol("agentkit.bodyRead");
type ReadingRequest = IncomingMessage & { body?: unknown; [BODY_READ]?: BodyRead | undefined };

function onData(this: ReadingRequest, chunk: Buffer): void {
  const read = this[BODY_READ];
  if (!read) return;
  read.received += chunk.length;
  read.chunks.push(chunk);
}

function onEnd(this: ReadingRequest): void {
  const read = this[BODY_READ];
  if (read) finish(this, read, read.received === read.length ? undefined : unreadable());
}

function onFailed(this: ReadingRequest): void {
  const read = this[BODY_READ];
  if (read) finish(this, read, unreadable());
}

/** Once per read: stop listening, then parse the body into `req.body`, or pass the error on. */
function finish(req: ReadingRequest, read: BodyRead, error: HttpRequestError | undefined): void {
  req[BODY_READ] = undefined;
  req.off("data", onData);
  req.off("end", onEnd);
  req.off("error", onFailed);
  req.off("close", onFailed);
  if (error) return void read.next(error);
  const { chunks, received } = read;
  const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
  try {
    req.body = parseStrict(body, read.maxDepth);
  } catch (caught) {
    return void read.next(caught);
  }
  read.next();
}

/**
 * The declared length of a body the lean path reads, or `undefined` when `express.json` should
 * handle the request (mirroring its own checks: a body, the JSON type, a UTF-8 charset, no coding).
 */
export function leanBodyLength(req: IncomingMessage): number | undefined {
  const { headers } = req;
  const raw = headers["content-length"];
  if (typeof raw !== "string" || !/^\d+$/.test(raw) || headers["transfer-encoding"] !== undefined) return undefined;
  if (headers["content-encoding"] !== undefined || !isPlainJsonType(headers["content-type"])) return undefined;
  // body-parser leaves a finished request (or a half-closed socket) unparsed.
  const socket = req.socket as typeof req.socket | null;
  if (!socket?.readable || (req.complete && !req.readable)) return undefined;
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
