import { Router } from "../http/express-module.js";
import { SessionNotFoundError } from "@agentkit/core";
import { validateSessionKey } from "@agentkit/core/internal";
import { addSessionToMemorySchema, parseBody } from "../http/request-schemas.js";
import type { RouteDeps } from "./route-deps.js";
import { checkSessionKeyParams } from "../http/session-key-params.js";

/** PATCH /apps/{app}/users/{user}/memory: adds a session to the memory service (4.14). */
export function memoryRoutes(deps: RouteDeps): Router {
  const router = checkSessionKeyParams(Router());
  router.patch("/apps/:app/users/:user/memory", async (req, res) => {
    const { app, user } = req.params;
    const { sessionId } = parseBody(addSessionToMemorySchema, req.body);
    const key = { appName: app, userId: user, sessionId };
    validateSessionKey(key);
    const session = await deps.context.sessionService.getSession(key);
    if (!session) throw new SessionNotFoundError(key);
    await deps.context.memoryService.addSessionToMemory(session);
    res.json(null);
  });
  return router;
}
