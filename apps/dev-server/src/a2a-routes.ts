import type { Runner } from "@agentkit/core";
import { principalOf, type ServerContext } from "@agentkit/server";
import { Router, type Request, type RequestHandler } from "express";

export interface A2aRoutesOptions {
  /**
   * The server authenticates: each A2A caller is its principal, so its runs use the
   * principal's user id (its sessions, not another caller's) and the SDK's task store keeps
   * each caller's tasks apart (a task id of another user is not found).
   */
  authenticated?: boolean;
}

/**
 * `--a2a`: every app of the server also speaks A2A under `/a2a/{app}` (agent card at
 * `/a2a/{app}/.well-known/agent-card.json`, JSON-RPC and HTTP+JSON). One handler per runner,
 * so a hot-reloaded app (a new runner) gets a fresh card and executor; an unknown app is the
 * server's usual JSON 404.
 */
export function createA2aRoutes(context: ServerContext, options: A2aRoutesOptions = {}): Router {
  const handlers = new WeakMap<Runner, RequestHandler>();
  const router = Router();
  router.use("/a2a/:app", async (req, res, next) => {
    try {
      const runner = await context.runnerFor(String(req.params.app));
      let handler = handlers.get(runner);
      if (!handler) {
        // Imported on first use: the A2A SDK is only needed once a client calls.
        const { createA2aRouter } = await import("@agentkit/a2a");
        handler =
          handlers.get(runner) ??
          createA2aRouter({
            runner,
            // Admitted as the server's own runs are: turns per session with /run, rate limits, shutdown.
            admitRun: (key, run) => context.admitRun(key, run),
            ...(options.authenticated ? { userBuilder: principalUser } : {}),
          });
        handlers.set(runner, handler);
      }
      await handler(req, res, next);
    } catch (error) {
      next(error);
    }
  });
  return router;
}

/** The A2A SDK's user for a request: the authenticated principal (the auth middleware ran first). */
async function principalUser(req: Request): Promise<{ readonly isAuthenticated: boolean; readonly userName: string }> {
  const principal = req.res ? principalOf(req.res) : undefined;
  return principal ? { isAuthenticated: true, userName: principal.userId } : { isAuthenticated: false, userName: "" };
}
