import { Router } from "../http/express-module.js";
import type { RunTracker } from "../runs/run-tracker.js";
import type { ServerContext } from "../server-context.js";
import { builtInChecks, checkReadiness, type ReadinessOptions } from "./readiness.js";

/**
 * `GET /healthz` (liveness: the process answers; 200 while draining too, so an orchestrator does
 * not kill a pod that is finishing its runs) and `GET /readyz` (readiness: 503 while draining
 * or when a store or the agents fail their check; each check's outcome in the body). Both are
 * public and never cached.
 */
export function healthRoutes(context: ServerContext, runs: RunTracker, options: ReadinessOptions = {}): Router {
  const router = Router();
  const checks = { ...builtInChecks(context), ...options.checks };
  const timeoutMs = options.timeoutMs ?? 2000;

  router.get("/healthz", (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.json({ status: "ok" });
  });

  router.get("/readyz", async (_req, res) => {
    res.setHeader("Cache-Control", "no-store");
    if (runs.isDraining) {
      res.status(503).json({ status: "draining", checks: {} });
      return;
    }
    const report = await checkReadiness(checks, timeoutMs);
    // Draining may have begun while the checks ran.
    const ready = report.ready && !runs.isDraining;
    res
      .status(ready ? 200 : 503)
      .json({ status: ready ? "ready" : runs.isDraining ? "draining" : "unavailable", checks: report.checks });
  });

  return router;
}
