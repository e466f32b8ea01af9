import type { BaseAgent } from "../agents/base-agent.js";
import type { ResumabilityConfig } from "../context/invocation-context.js";
import { InMemoryArtifactService } from "../artifacts/in-memory-artifact-service.js";
import { InMemoryMemoryService } from "../memory/in-memory-memory-service.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { BasePlugin } from "../plugins/base-plugin.js";
import { InMemorySessionService } from "../sessions/in-memory-session-service.js";
import type { App } from "./app.js";
import { Runner } from "./runner.js";

export type InMemoryRunnerOptions =
  | {
      agent: BaseAgent;
      appName?: string;
      plugins?: BasePlugin[];
      modelRegistry?: ModelRegistry;
      resumability?: ResumabilityConfig;
      app?: undefined;
    }
  | { app: App; appName?: string; modelRegistry?: ModelRegistry; agent?: undefined; plugins?: undefined };

/**
 * A `Runner` with in-memory session, artifact and memory services (for tests, scripts and
 * examples; nothing survives the process). `appName` defaults to the app's name, or
 * `"InMemoryRunner"` for a bare agent (as ADK).
 */
export class InMemoryRunner extends Runner {
  declare readonly sessionService: InMemorySessionService;
  declare readonly artifactService: InMemoryArtifactService;
  declare readonly memoryService: InMemoryMemoryService;

  constructor(options: InMemoryRunnerOptions) {
    const services = {
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      modelRegistry: options.modelRegistry,
    };
    if (options.app) super({ ...services, app: options.app, appName: options.appName });
    else
      super({
        ...services,
        agent: options.agent,
        appName: options.appName ?? "InMemoryRunner",
        plugins: options.plugins,
        resumability: options.resumability,
      });
  }
}
