import type { ServerResponse } from "node:http";
import { endAtTurnEnd } from "./end-at-turn-end.js";

/**
 * Answers `status` with `body` as JSON on node's own response, exactly as Express's
 * `res.status(status).json(body)` does in this app for an error status (no ETag, no freshness
 * check: that only applies to 2xx), so the guards and error handlers can answer on the lean hot
 * path (`routes/hot-request-listener.ts`) and under Express alike.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.statusCode = status;
  writeJsonText(res, JSON.stringify(body));
}

/**
 * Writes serialized JSON with its headers in one socket write (no body for HEAD), at the end of
 * this turn of the event loop with the other answers finished in it (`endAtTurnEnd`).
 */
export function writeJsonText(res: ServerResponse, text: string): void {
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(text));
  if (res.req?.method === "HEAD") res.end();
  else endAtTurnEnd(res, text);
}
