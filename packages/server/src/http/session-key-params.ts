import type { Router } from "express";
import { validateSessionKeyPart, type SessionKeyField } from "@agentkit/core/internal";

const FIELDS: Readonly<Record<string, SessionKeyField>> = { app: "appName", user: "userId", sid: "sessionId" };

/**
 * Checks the `:app`, `:user` and `:sid` path parameters of a router's routes by core's session
 * key rules before any handler runs: a bad one is 400 `INVALID_SESSION_KEY`, whatever backend
 * sits behind the route.
 */
export function checkSessionKeyParams(router: Router): Router {
  for (const [param, field] of Object.entries(FIELDS)) {
    router.param(param, (_req, _res, next, value: unknown) => {
      validateSessionKeyPart(value, field);
      next();
    });
  }
  return router;
}
