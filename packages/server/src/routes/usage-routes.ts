import { Router } from "../http/express-module.js";
import type { RouteDeps } from "./route-deps.js";

/**
 * `GET /apps/{app}/users/{user}/sessions/{sid}/usage`: the session's usage (tokens by kind,
 * model and tool calls, duration, cost) in total and per invocation, computed from its stored
 * events by the app's runner (so any replica answers the same). 404 for an unknown app or session.
 */
export function usageRoutes(deps: RouteDeps): Router {
  const router = Router();
  router.get("/apps/:app/users/:user/sessions/:sid/usage", async (req, res) => {
    const { app, user, sid } = req.params;
    const runner = await deps.context.runnerFor(app);
    const usage = await runner.getUsage({ userId: user, sessionId: sid });
    res.json({ appName: app, userId: user, sessionId: sid, ...usage });
  });
  return router;
}
