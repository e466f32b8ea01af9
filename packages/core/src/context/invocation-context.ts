import type { Content } from "../content/content.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import { LlmCallsLimitExceededError, RunAbortedError } from "../errors/run-errors.js";
import type { BaseMemoryService } from "../memory/base-memory-service.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { PluginManager } from "../plugins/plugin-manager.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import type { BaseAgent } from "../agents/base-agent.js";
import type { LiveRequestQueue } from "../agents/live-request-queue.js";
import { resolveRunConfig, type ResolvedRunConfig, type RunConfig } from "../agents/run-config.js";
import type { ContentsCache } from "../flows/contents-cache.js";
import { UsageTracker } from "../usage/usage-tracker.js";
import type { BaseCredentialService } from "../auth/base-credential-service.js";
import type { CredentialExchangerRegistry } from "../auth/credential-exchangers.js";

export interface InvocationContextInit {
  invocationId: string;
  agent: BaseAgent;
  session: Session;
  sessionService: BaseSessionService;
  artifactService?: BaseArtifactService;
  memoryService?: BaseMemoryService;
  pluginManager: PluginManager;
  modelRegistry?: ModelRegistry;
  /** The app's context-cache settings; the flow copies them into every model request. */
  contextCacheConfig?: ContextCacheConfig;
  /** The runner's memos of request contents (see `getContents`); none means a full build per request. */
  contentsCache?: ContentsCache;
  userContent?: Content;
  branch?: string;
  runConfig?: RunConfig;
  liveRequestQueue?: LiveRequestQueue;
  signal?: AbortSignal;
  appName?: string;
  /** The invocation's usage and budget (the runner makes one; a bare context gets an unlimited one). */
  usage?: UsageTracker;
  /** Where tools' credentials are stored (see docs/auth.md); none means a process-wide in-memory one. */
  credentialService?: BaseCredentialService;
  /** Exchangers and refreshers by scheme type; none means the OAuth2/OIDC defaults. */
  credentialExchangers?: CredentialExchangerRegistry;
  /** Whether pauses are checkpointed and resumed (`App.resumability`); off by default. */
  resumability?: ResumabilityConfig;
  /** Set while an agent runs as a workflow node: its path, input and output sink. */
  nodeScope?: NodeScope;
}

/** How an app treats pauses (ADK's `ResumabilityConfig`). */
export interface ResumabilityConfig {
  /**
   * When true, a run that pauses anywhere in a tree of workflows, workflow agents and agent tools
   * (a confirmation, `request_input`, a long-running tool, a credential request) is checkpointed
   * in the session and resumes where it stopped when the answer arrives.
   */
  isResumable: boolean;
}

/**
 * What a workflow tells an agent it runs as a node (internal): the node's path (the scope of
 * the agent's own workflow records), whether this run continues a paused or interrupted one, the
 * node's input, and where a nested workflow reports its output.
 */
export interface NodeScope {
  path: string;
  resume: boolean;
  input?: unknown;
  /** Whether `input` is already in the history the agent reads (so it is not shown again). */
  inputInHistory?: boolean;
  setOutput?: (output: unknown) => void;
  /** The parent workflow records this run's completion (a nested workflow writes no end record of its own). */
  recordedByParent?: boolean;
}

/** Counts model calls across every agent of one invocation. */
class LlmCallCounter {
  count = 0;
}

/**
 * Everything one invocation (one user turn) runs with: the session, the services, the
 * current agent and branch, the run config and the cancellation signal. Agents receive a
 * copy per agent (`withAgent`) so branch and agent stay local while counters are shared.
 */
export class InvocationContext {
  readonly invocationId: string;
  readonly agent: BaseAgent;
  readonly session: Session;
  readonly sessionService: BaseSessionService;
  readonly artifactService?: BaseArtifactService;
  readonly memoryService?: BaseMemoryService;
  readonly pluginManager: PluginManager;
  readonly modelRegistry?: ModelRegistry;
  readonly contextCacheConfig?: ContextCacheConfig;
  readonly contentsCache?: ContentsCache;
  readonly userContent?: Content;
  readonly branch?: string;
  readonly runConfig: ResolvedRunConfig;
  readonly liveRequestQueue?: LiveRequestQueue;
  readonly signal?: AbortSignal;
  /** Usage of the invocation so far and its budget, shared by every agent of it. */
  readonly usage: UsageTracker;
  readonly credentialService?: BaseCredentialService;
  readonly credentialExchangers?: CredentialExchangerRegistry;
  readonly resumability?: ResumabilityConfig;
  /** Set by a workflow for the agent it runs as a node (internal). */
  readonly nodeScope?: NodeScope;
  /** Set to stop the invocation after the current step (e.g. a callback answered). */
  endInvocation = false;
  private readonly counter: LlmCallCounter;
  private readonly shared: { endInvocation: boolean };

  /**
   * `internals` is given only by `withAgent`: the counters a copy shares with its parent, whose
   * `runConfig` is resolved already (resolving it again would copy it for every agent of a run).
   */
  constructor(
    init: InvocationContextInit,
    internals?: { counter: LlmCallCounter; shared: { endInvocation: boolean } },
  ) {
    this.invocationId = init.invocationId;
    this.agent = init.agent;
    this.session = init.session;
    this.sessionService = init.sessionService;
    this.artifactService = init.artifactService;
    this.memoryService = init.memoryService;
    this.pluginManager = init.pluginManager;
    this.modelRegistry = init.modelRegistry;
    this.contextCacheConfig = init.contextCacheConfig;
    this.contentsCache = init.contentsCache;
    this.userContent = init.userContent;
    this.branch = init.branch;
    this.runConfig = internals ? (init.runConfig as ResolvedRunConfig) : resolveRunConfig(init.runConfig);
    this.liveRequestQueue = init.liveRequestQueue;
    this.signal = init.signal;
    this.usage = init.usage ?? new UsageTracker();
    this.credentialService = init.credentialService;
    this.credentialExchangers = init.credentialExchangers;
    this.resumability = init.resumability;
    this.nodeScope = init.nodeScope;
    this.counter = internals?.counter ?? new LlmCallCounter();
    this.shared = internals?.shared ?? { endInvocation: false };
  }

  get appName(): string {
    return this.session.appName;
  }

  get userId(): string {
    return this.session.userId;
  }

  /** True once any agent of the invocation ended it. */
  get isEnded(): boolean {
    return this.endInvocation || this.shared.endInvocation;
  }

  /** Ends the whole invocation (every agent sharing it stops after its current step). */
  end(): void {
    this.endInvocation = true;
    this.shared.endInvocation = true;
  }

  /** True when the app checkpoints pauses and resumes them (`App({ resumability: { isResumable: true } })`). */
  get isResumable(): boolean {
    return this.resumability?.isResumable === true;
  }

  /** Model calls made so far in this invocation. */
  get llmCallCount(): number {
    return this.counter.count;
  }

  /** Counts a model call; throws `LlmCallsLimitExceededError` past `runConfig.maxLlmCalls`. */
  incrementLlmCallCount(): void {
    this.counter.count += 1;
    const limit = this.runConfig.maxLlmCalls;
    if (limit > 0 && this.counter.count > limit) throw new LlmCallsLimitExceededError(limit);
  }

  /** Throws `RunAbortedError` when the run's signal fired. */
  throwIfAborted(): void {
    if (this.signal?.aborted) throw new RunAbortedError({ cause: this.signal.reason });
  }

  /**
   * A copy for another agent (and optionally another branch), sharing counters and session. Every
   * agent of every run gets one (the runner's, then the agent's own), so the copy's fields are
   * given in one literal: no intermediate record spread into another, no second resolution of
   * the run config.
   */
  withAgent(
    agent: BaseAgent,
    overrides: { branch?: string; userContent?: Content; signal?: AbortSignal; nodeScope?: NodeScope } = {},
  ): InvocationContext {
    return new InvocationContext(
      {
        invocationId: this.invocationId,
        agent,
        session: this.session,
        sessionService: this.sessionService,
        artifactService: this.artifactService,
        memoryService: this.memoryService,
        pluginManager: this.pluginManager,
        modelRegistry: this.modelRegistry,
        contextCacheConfig: this.contextCacheConfig,
        contentsCache: this.contentsCache,
        userContent: overrides.userContent ?? this.userContent,
        branch: "branch" in overrides ? overrides.branch : this.branch,
        runConfig: this.runConfig,
        liveRequestQueue: this.liveRequestQueue,
        // A narrower signal (e.g. a ParallelAgent stopping its siblings); it must follow the run's.
        signal: overrides.signal ?? this.signal,
        usage: this.usage,
        credentialService: this.credentialService,
        credentialExchangers: this.credentialExchangers,
        resumability: this.resumability,
        // A node scope belongs to the agent it was made for, never to its sub-agents.
        nodeScope: "nodeScope" in overrides ? overrides.nodeScope : agent === this.agent ? this.nodeScope : undefined,
      },
      { counter: this.counter, shared: this.shared },
    );
  }
}
