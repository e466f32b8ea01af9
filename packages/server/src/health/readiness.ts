import { AgentKitError } from "@agentkit/core";
import type { ServerContext } from "../server-context.js";

/** One readiness check: resolves when its dependency answers, throws (or times out) when not. */
export type ReadinessCheck = () => Promise<unknown>;

export interface ReadinessOptions {
  /** How long one check may take before it counts as failed. Default 2000 ms. */
  timeoutMs?: number;
  /** Checks of your own, run next to the built-in `sessions`, `artifacts` and `agents`. */
  checks?: Readonly<Record<string, ReadinessCheck>>;
}

/** What `/readyz` answers: each check's outcome; a failed check names only its error code. */
export interface ReadinessReport {
  ready: boolean;
  checks: Record<string, { ok: true; ms: number } | { ok: false; ms: number; code: string }>;
}

// A key no user can have (core's key rules refuse nothing here, it is only read): listing its
// sessions is the cheapest query a store answers, and it changes nothing.
const PROBE = { appName: "agentkit-readyz", userId: "agentkit-readyz", sessionId: "agentkit-readyz" };

/**
 * The built-in checks: the session and artifact stores answer a read, and the loader lists and
 * loads every app (cached while unchanged). Memory is left out: a search can cost money on a
 * hosted memory bank; add a check of your own when it matters.
 */
export function builtInChecks(context: ServerContext): Record<string, ReadinessCheck> {
  return {
    sessions: () => context.sessionService.listSessions({ appName: PROBE.appName, userId: PROBE.userId }),
    artifacts: () => context.artifactService.listArtifactKeys(PROBE),
    agents: async () => {
      const names = await context.loader.listApps();
      await Promise.all(names.map((name) => context.loader.loadApp(name)));
    },
  };
}

/** Runs every check at once, each bounded by `timeoutMs`. */
export async function checkReadiness(
  checks: Readonly<Record<string, ReadinessCheck>>,
  timeoutMs: number,
): Promise<ReadinessReport> {
  const entries = await Promise.all(
    Object.entries(checks).map(async ([name, check]) => [name, await runCheck(check, timeoutMs)] as const),
  );
  return { ready: entries.every(([, r]) => r.ok), checks: Object.fromEntries(entries) };
}

async function runCheck(check: ReadinessCheck, timeoutMs: number): Promise<ReadinessReport["checks"][string]> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), timeoutMs)));
  try {
    const outcome = await Promise.race([Promise.resolve().then(check), timeout]);
    if (outcome === "timeout") return { ok: false, ms: ms(), code: "READINESS_CHECK_TIMEOUT" };
    return { ok: true, ms: ms() };
  } catch (error) {
    // Only the code: a driver's message can carry a host name or a connection string.
    return { ok: false, ms: ms(), code: error instanceof AgentKitError ? error.code : "ERROR" };
  } finally {
    clearTimeout(timer);
  }
}
