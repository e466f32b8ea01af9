import type { Response } from "express";

/**
 * Answers with JSON text already serialized (events and sessions are written in one pass), as
 * `res.json` would but without serializing again; API answers carry no ETag (the app turns
 * Express's off: hashing every body costs CPU and no client revalidates a run's answer).
 */
export function sendJsonText(res: Response, json: string): void {
  res.type("application/json").send(json);
}
