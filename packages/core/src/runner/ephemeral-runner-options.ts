import { InMemoryArtifactService } from "../artifacts/in-memory-artifact-service.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { RunContextInit, RunnerView } from "./run-context.js";
import type { Runner } from "./runner.js";
import type { RunnerOptions } from "./runner-options.js";

/**
 * The options of the private runner of one `runEphemeral` run: the given throwaway session
 * store and a fresh in-memory artifact store, so nothing of the run reaches the runner's own
 * stores; everything else (app or agent, plugins, budget, prices, resumability, memory and
 * credential services, model registry, clock) is the runner's. The private runner must never be
 * closed: that would close the agents' toolsets and the plugins it shares.
 */
export function ephemeralRunnerOptions(
  runner: RunnerView & Pick<Runner, "app">,
  sessionService: BaseSessionService,
  now: RunContextInit["now"],
): RunnerOptions {
  const shared = {
    sessionService,
    artifactService: new InMemoryArtifactService(),
    ...(runner.memoryService ? { memoryService: runner.memoryService } : {}),
    ...(runner.modelRegistry ? { modelRegistry: runner.modelRegistry } : {}),
    ...(now ? { now } : {}),
    credentialService: runner.credentialService,
    credentialExchangers: runner.credentialExchangers,
  };
  if (runner.app) return { ...shared, app: runner.app, appName: runner.appName };
  return {
    ...shared,
    agent: runner.agent,
    appName: runner.appName,
    plugins: [...runner.pluginManager.plugins],
    ...(runner.budget ? { budget: runner.budget } : {}),
    prices: runner.prices,
    ...(runner.resumability ? { resumability: runner.resumability } : {}),
  };
}
