import type { Router } from "express";
import type { ModelRegistry } from "@agentkit/core";
import type { AgentLoader } from "../agent-loader.js";
import { createAgentTestsRouter } from "./agent-tests-router.js";
import { createBuilderRouter } from "./builder-router.js";
import { createTelemetryRouter, type TelemetryConsentStore } from "./telemetry-consent.js";

export interface AppDevRoutersOptions {
  /** The server's loader: the builder and agent tests work in its `agentsDir` and reload through it. */
  loader: AgentLoader;
  /** The server's registry: agent tests resolve string model names with it when they rebuild. */
  modelRegistry?: ModelRegistry;
  /** Where the dev UI's telemetry consent answer is kept (pass its `read` to the dev UI too). */
  telemetry: TelemetryConsentStore;
}

/**
 * The dev UI's own dev routers (http-api.md 4.11): telemetry consent, and, when the loader reads
 * an agents directory, the agent builder and agent tests, which write files in it. Mount each
 * with `server.mountDevTools(...)`, which puts it behind the dev tooling gate and refuses it in
 * api mode: these routers check no caller themselves.
 */
export function createAppDevRouters(options: AppDevRoutersOptions): Router[] {
  const { loader } = options;
  const routers = [createTelemetryRouter(options.telemetry)];
  const agentsDir = loader.agentsDir;
  if (agentsDir === undefined) return routers;
  routers.push(
    createBuilderRouter({
      agentsDir,
      ...(loader.builderPolicy ? { policy: loader.builderPolicy } : {}),
      // The next request after a save sees the saved app.
      afterSave: async () => {
        await loader.settled?.();
      },
    }),
    createAgentTestsRouter({
      agentsDir,
      loader,
      ...(options.modelRegistry ? { modelRegistry: options.modelRegistry } : {}),
    }),
  );
  return routers;
}
