import type { BaseAgent } from "../agents/base-agent.js";
import type { LiveRequestQueue } from "../agents/live-request-queue.js";
import type { RunConfig } from "../agents/run-config.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import type { BaseCredentialService } from "../auth/base-credential-service.js";
import type { CredentialExchangerRegistry } from "../auth/credential-exchangers.js";
import type { Content } from "../content/content.js";
import type { ResumabilityConfig } from "../context/invocation-context.js";
import type { BaseMemoryService } from "../memory/base-memory-service.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { BasePlugin } from "../plugins/base-plugin.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Budget } from "../usage/budget.js";
import type { ModelPrice, PriceTable } from "../usage/price-table.js";
import type { App } from "./app.js";

interface RunnerServices {
  sessionService: BaseSessionService;
  artifactService?: BaseArtifactService;
  memoryService?: BaseMemoryService;
  /** Resolves string model names; the caller owns it (the runner never closes it). */
  modelRegistry?: ModelRegistry;
  /** Clock in milliseconds for usage durations and time budgets (default `Date.now`; tests replace it). */
  now?: () => number;
  /** Where tools' credentials are stored (docs/auth.md); default: in process memory. The caller closes it. */
  credentialService?: BaseCredentialService;
  /** Credential exchangers and refreshers by scheme type; default: OAuth2 and OpenID Connect. */
  credentialExchangers?: CredentialExchangerRegistry;
}

/** Settings of a runner made from an agent (an App carries its own). */
interface RunnerUsageOptions {
  /** See `App.resumability`. */
  resumability?: ResumabilityConfig;
  /** Default usage limits of every run (`RunConfig.budget` wins field by field). */
  budget?: Budget;
  /** Model prices for usage costs: a table, or prices over the shipped ones. */
  prices?: PriceTable | Record<string, ModelPrice>;
}

/** `new Runner({ appName, agent, sessionService, ... })` or `new Runner({ app, sessionService, ... })`. */
export type RunnerOptions = RunnerServices &
  (
    | ({ agent: BaseAgent; appName: string; app?: undefined; plugins?: BasePlugin[] } & RunnerUsageOptions)
    /** `appName` defaults to `app.name`; plugins, budget and prices come from the app. */
    | {
        app: App;
        appName?: string;
        agent?: undefined;
        plugins?: undefined;
        budget?: undefined;
        prices?: undefined;
        resumability?: undefined;
      }
  );

export interface RunAsyncRequest {
  userId: string;
  sessionId: string;
  /** The user's message (a string is sent as one text part). Optional: a run may only apply `stateDelta`. */
  newMessage?: Content | string;
  /** State changes stored with the user's event. */
  stateDelta?: Record<string, unknown>;
  runConfig?: RunConfig;
  /** Aborting ends the run promptly: the generator throws `RunAbortedError`, nothing later is persisted. */
  signal?: AbortSignal;
  /** Use this invocation id instead of a new `e-<uuid>`. */
  invocationId?: string;
}

/** `runEphemeral`: a run request without a session. */
export type RunEphemeralRequest = Omit<RunAsyncRequest, "userId" | "sessionId"> & {
  /** Default `"ephemeral-user"` (credentials and memory are looked up for this user). */
  userId?: string;
  /** Initial state of the throwaway session. */
  state?: Record<string, unknown>;
};

export interface ResumeRequest {
  userId: string;
  sessionId: string;
  runConfig?: RunConfig;
  signal?: AbortSignal;
}

export interface RunLiveRequest {
  userId: string;
  sessionId: string;
  /** What the client sends (content, realtime blobs, close). Closing it ends the run. */
  liveRequestQueue: LiveRequestQueue;
  /** `streamingMode` is forced to `BIDI`. */
  runConfig?: RunConfig;
  signal?: AbortSignal;
}
