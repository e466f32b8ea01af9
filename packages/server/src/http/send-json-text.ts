import type { Response } from "express";
import { writeJsonText } from "./send-json.js";

/**
 * Answers with JSON text already serialized (events and sessions are written in one pass), as
 * `res.json` would but without serializing again and without Express's `send`: that path looks
 * the type up in mime-types, re-parses it to set the charset, copies the text into a Buffer
 * (the headers then go out in a second write) and checks freshness. Here the text is written
 * with the headers in one socket write. API answers carry no ETag (the app turns Express's off).
 */
export function sendJsonText(res: Response, json: string): void {
  const { req } = res;
  // A conditional GET can be "fresh" for `send` (`If-None-Match: *` → 304): keep that answer exact.
  if (req.headers["if-none-match"] !== undefined || req.headers["if-modified-since"] !== undefined) {
    res.type("application/json").send(json);
    return;
  }
  writeJsonText(res, json);
}
