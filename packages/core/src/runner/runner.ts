import type { BaseAgent } from "../agents/base-agent.js";
import { InvocationContext, type NodeScope, type ResumabilityConfig } from "../context/invocation-context.js";
import type { LiveRequestQueue } from "../agents/live-request-queue.js";
import { resolveRunConfig, StreamingMode, type RunConfig } from "../agents/run-config.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import { createUserContent, type Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { BudgetExceededError } from "../errors/budget-errors.js";
import { NotResumableError, NothingToResumeError, RunAbortedError } from "../errors/run-errors.js";
import { SessionAlreadyExistsError, SessionNotFoundError } from "../errors/session-errors.js";
import { createEvent, newInvocationId, type Event } from "../events/event.js";
import type { BaseMemoryService } from "../memory/base-memory-service.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { BasePlugin } from "../plugins/base-plugin.js";
import { PluginManager } from "../plugins/plugin-manager.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import { InMemorySessionService } from "../sessions/in-memory-session-service.js";
import { InMemoryArtifactService } from "../artifacts/in-memory-artifact-service.js";
import type { Session } from "../sessions/session.js";
import { validateAppName, type App, type EventsCompactionConfig, type EventsSummarizer } from "./app.js";
import { ContentsCache } from "../flows/contents-cache.js";
import { closeAgentTree } from "./close-agents.js";
import { forkSession, type ForkRequest } from "./fork-session.js";
import { rewindSession, type RewindRequest } from "./rewind-session.js";
import { warmUpAgentTree, type WarmUpReport } from "./warm-up.js";
import { compactAfterRun } from "./compact-after-run.js";
import { findAgentToRun } from "./find-agent-to-run.js";
import { findInterruptedRun, findResumeTarget } from "./resume-target.js";
import { checkIncomingMessage } from "../flows/incoming-message-check.js";
import { closeInterruptedCalls } from "./interrupted-calls.js";
import { AbortWatch, applyCustomMetadata, saveInputBlobsAsArtifacts } from "./run-helpers.js";
import { resolveBudget, type Budget } from "../usage/budget.js";
import { PriceTable, type ModelPrice } from "../usage/price-table.js";
import { sessionUsageFromEvents, type SessionUsage } from "../usage/session-usage.js";
import { SessionUsageCache } from "../usage/session-usage-cache.js";
import { budgetExceededEvent, newUsageTracker, recordEventUsage } from "./run-usage.js";
import { InMemoryCredentialService, type BaseCredentialService } from "../auth/base-credential-service.js";
import { CredentialExchangerRegistry } from "../auth/credential-exchangers.js";

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

/**
 * Runs an agent tree against a session: appends the user's message, runs the agent that
 * should answer, persists every complete event before the agent continues, and applies
 * plugins around it all. Services passed in belong to the caller; `close()` releases only
 * what the runner owns (plugins and the agents' toolsets).
 */
export class Runner {
  readonly appName: string;
  readonly agent: BaseAgent;
  readonly app?: App;
  readonly sessionService: BaseSessionService;
  readonly artifactService?: BaseArtifactService;
  readonly memoryService?: BaseMemoryService;
  readonly credentialService: BaseCredentialService;
  readonly credentialExchangers: CredentialExchangerRegistry;
  readonly modelRegistry?: ModelRegistry;
  readonly pluginManager: PluginManager;
  readonly eventsCompactionConfig?: EventsCompactionConfig;
  readonly contextCacheConfig?: ContextCacheConfig;
  /** Memos of request contents per session, so a request costs what was appended, not the history. */
  readonly contentsCache = new ContentsCache();
  /** Walks of sessions' usage, so the usage before a run costs what was appended since the last one. */
  private readonly usageCache = new SessionUsageCache();
  /** Default usage limits of every run. */
  readonly budget?: Budget;
  /** Prices of the usage rollups. */
  readonly prices: PriceTable;
  /** Whether pauses are checkpointed and resumed (from the App, or the runner's options). */
  readonly resumability?: ResumabilityConfig;
  private readonly now?: () => number;
  /** The summarizer made on the root agent's model when the compaction config names none. */
  private readonly compactionFallback: { summarizer?: EventsSummarizer } = {};
  private closing?: Promise<void>;

  constructor(options: RunnerOptions) {
    if (!options.sessionService)
      throw new ConfigurationError("Runner needs a sessionService (e.g. new InMemorySessionService()).");
    if (options.app) {
      if (options.agent)
        throw new ConfigurationError("Pass either app or agent to the Runner, not both: the app's rootAgent is run.");
      if (options.plugins)
        throw new ConfigurationError("When the Runner gets an app, give the plugins to the App instead.");
      if (options.budget || options.prices || options.resumability)
        throw new ConfigurationError(
          "When the Runner gets an app, give the budget, prices and resumability to the App instead.",
        );
      this.app = options.app;
      this.agent = options.app.rootAgent;
      this.appName = options.appName ?? options.app.name;
      this.pluginManager = new PluginManager(options.app.plugins);
      this.eventsCompactionConfig = options.app.eventsCompactionConfig;
      this.contextCacheConfig = options.app.contextCacheConfig;
      this.budget = options.app.budget;
      this.prices = options.app.prices;
      this.resumability = options.app.resumability;
    } else {
      if (!options.agent) throw new ConfigurationError("Runner needs an agent (with appName) or an app.");
      if (typeof options.appName !== "string" || options.appName === "") {
        throw new ConfigurationError("Runner needs an appName when given an agent (or pass an App).");
      }
      this.agent = options.agent;
      this.appName = options.appName;
      this.pluginManager = new PluginManager(options.plugins ?? []);
      this.budget = resolveBudget(options.budget);
      this.prices = PriceTable.from(options.prices);
      if (options.resumability) this.resumability = { isResumable: options.resumability.isResumable === true };
    }
    if (options.app) validateAppName(this.appName);
    this.sessionService = options.sessionService;
    this.artifactService = options.artifactService;
    this.memoryService = options.memoryService;
    this.credentialService = options.credentialService ?? new InMemoryCredentialService();
    this.credentialExchangers = options.credentialExchangers ?? CredentialExchangerRegistry.withDefaults();
    this.modelRegistry = options.modelRegistry ?? options.app?.modelRegistry;
    if (options.now) this.now = options.now;
  }

  /**
   * Runs one invocation for a user message and yields its events. Complete events are
   * persisted (after `onEventCallback` plugins, which may replace them) before the agent is
   * resumed; partial events are yielded only. The user's event is persisted, not yielded.
   * Breaking out of the loop stops the agent. Aborting `signal` throws `RunAbortedError`.
   */
  async *runAsync(request: RunAsyncRequest): AsyncGenerator<Event, void, void> {
    this.assertOpen();
    const watch = new AbortWatch(request.signal);
    try {
      watch.throwIfAborted();
      const runConfig = resolveRunConfig(request.runConfig);
      const session = await watch.race(
        this.loadSession(request.userId, request.sessionId, runConfig.autoCreateSession),
      );
      const rootContext = this.newContext({
        session,
        runConfig,
        signal: request.signal,
        invocationId: request.invocationId,
      });

      // The caller's message is data from outside: refused before anything is stored if it calls
      // a function or answers a call the flow is not waiting for.
      let message =
        request.newMessage === undefined
          ? undefined
          : checkIncomingMessage(withUserRole(createUserContent(request.newMessage)), session.events);
      await this.closeInterruptedCalls(session, watch);
      let artifactDelta: Record<string, number> = {};
      if (message) {
        const replaced = await this.pluginManager.run("onUserMessageCallback", {
          invocationContext: rootContext,
          userMessage: message,
        });
        if (replaced) message = withUserRole(replaced);
        if (runConfig.saveInputBlobsAsArtifacts) {
          if (!this.artifactService)
            throw new ConfigurationError("saveInputBlobsAsArtifacts needs an artifactService on the Runner.");
          ({ message, artifactDelta } = await saveInputBlobsAsArtifacts({
            message,
            artifactService: this.artifactService,
            appName: this.appName,
            userId: session.userId,
            sessionId: session.id,
            invocationId: rootContext.invocationId,
          }));
        }
      }
      const stateDelta = { ...(request.stateDelta ?? {}) };
      if (message || Object.keys(stateDelta).length > 0) {
        const userEvent = createEvent({
          invocationId: rootContext.invocationId,
          author: "user",
          content: message,
          actions: { stateDelta, artifactDelta },
        });
        applyCustomMetadata(userEvent, runConfig.customMetadata);
        watch.throwIfAborted();
        await this.sessionService.appendEvent({ session, event: userEvent });
      }

      // In a resumable app an answer continues the paused workflow run it belongs to.
      const resumeTarget = this.resumability?.isResumable ? findResumeTarget(session, this.agent) : undefined;
      const agent = resumeTarget ?? findAgentToRun(session, this.agent);
      const ctx = rootContext.withAgent(agent, {
        userContent: message,
        nodeScope: resumeTarget ? resumeScope(resumeTarget, message) : undefined,
      });
      yield* this.execute(ctx, session, watch, (c) => c.agent.runAsync(c));
      // Reached only when the run completed (not on break, abort or error).
      if (this.eventsCompactionConfig) {
        const failure = await compactAfterRun({
          config: this.eventsCompactionConfig,
          rootAgent: this.agent,
          ctx,
          session,
          sessionService: this.sessionService,
          signal: request.signal,
          fallback: this.compactionFallback,
        });
        // Yielded, not stored: the caller learns of it; the session keeps only the run.
        if (failure) yield failure;
      }
    } finally {
      watch.dispose();
    }
  }

  /**
   * One run with no stored session (ADK's `runEphemeral`): the agent runs on a fresh session in
   * a private in-memory store (with `state` as its initial state) and a private artifact store,
   * both dropped when the run ends, so nothing of it reaches this runner's session or artifact
   * service. Plugins, the memory and credential services, budgets and the model registry are
   * this runner's. `app:`/`user:` state of the runner's store is not visible to the run.
   */
  async *runEphemeral(request: RunEphemeralRequest): AsyncGenerator<Event, void, void> {
    this.assertOpen();
    const sessionService = new InMemorySessionService();
    const shared = {
      sessionService,
      artifactService: new InMemoryArtifactService(),
      ...(this.memoryService ? { memoryService: this.memoryService } : {}),
      ...(this.modelRegistry ? { modelRegistry: this.modelRegistry } : {}),
      ...(this.now ? { now: this.now } : {}),
      credentialService: this.credentialService,
      credentialExchangers: this.credentialExchangers,
    };
    // Never closed: closing would close the agents' toolsets and plugins this runner shares.
    const runner = this.app
      ? new Runner({ ...shared, app: this.app, appName: this.appName })
      : new Runner({
          ...shared,
          agent: this.agent,
          appName: this.appName,
          plugins: [...this.pluginManager.plugins],
          ...(this.budget ? { budget: this.budget } : {}),
          prices: this.prices,
          ...(this.resumability ? { resumability: this.resumability } : {}),
        });
    const { userId = "ephemeral-user", state, ...run } = request;
    const session = await sessionService.createSession({ appName: this.appName, userId, ...(state ? { state } : {}) });
    yield* runner.runAsync({ ...run, userId, sessionId: session.id });
  }

  /**
   * Continues the session's interrupted run (resumable apps): a run cut off by a crash, a restart,
   * an abort or an error continues from its last checkpoint. Completed nodes are not run again, a
   * tool call that already returned is never run again, and a call cut off before it returned is
   * reported (an error response), not repeated. A run paused for the client waits for its answer
   * (this returns without events). Throws `NothingToResumeError` when the latest run completed,
   * `NotResumableError` when the app is not resumable.
   */
  async *resume(request: ResumeRequest): AsyncGenerator<Event, void, void> {
    this.assertOpen();
    if (!this.resumability?.isResumable) throw new NotResumableError();
    const watch = new AbortWatch(request.signal);
    try {
      watch.throwIfAborted();
      const runConfig = resolveRunConfig(request.runConfig);
      const session = await watch.race(this.loadSession(request.userId, request.sessionId, false));
      const target = findInterruptedRun(session, this.agent);
      if (!target) throw new NothingToResumeError(request.sessionId);
      const rootContext = this.newContext({ session, runConfig, signal: request.signal });
      await this.closeInterruptedCalls(session, watch);
      const ctx = rootContext.withAgent(target, { nodeScope: resumeScope(target, undefined) });
      yield* this.execute(ctx, session, watch, (c) => c.agent.runAsync(c));
    } finally {
      watch.dispose();
    }
  }

  /**
   * Runs the agent in live (BIDI) mode: the agent reads `liveRequestQueue` and yields model
   * output as events (persisted like `runAsync`'s, complete ones only) until the queue is
   * closed, the model ends the connection or `signal` aborts (`RunAbortedError`).
   */
  async *runLive(request: RunLiveRequest): AsyncGenerator<Event, void, void> {
    this.assertOpen();
    const watch = new AbortWatch(request.signal);
    try {
      watch.throwIfAborted();
      const runConfig = resolveRunConfig({ ...request.runConfig, streamingMode: StreamingMode.BIDI });
      const session = await watch.race(
        this.loadSession(request.userId, request.sessionId, runConfig.autoCreateSession),
      );
      const rootContext = this.newContext({
        session,
        runConfig,
        signal: request.signal,
        liveRequestQueue: request.liveRequestQueue,
      });
      await this.closeInterruptedCalls(session, watch);
      const ctx = rootContext.withAgent(findAgentToRun(session, this.agent));
      yield* this.execute(ctx, session, watch, (c) => c.agent.runLive(c));
    } finally {
      watch.dispose();
    }
  }

  /**
   * The usage of a session (each invocation's and the total), computed from its stored events
   * with this runner's prices, so it is the same on any replica and after a restart.
   * Throws `SessionNotFoundError` when the session does not exist.
   */
  async getUsage(request: { userId: string; sessionId: string }): Promise<SessionUsage> {
    const key = { appName: this.appName, userId: request.userId, sessionId: request.sessionId };
    const session = await this.sessionService.getSession(key);
    if (!session) throw new SessionNotFoundError(key);
    return sessionUsageFromEvents(session.events, this.prices);
  }

  /**
   * Rewinds a session to just before an invocation (as ADK's `rewind_async`): later model
   * requests no longer see that invocation or any after it, session state and session artifacts
   * are put back as they were then. The history is kept; the returned rewind event records it.
   * See `rewindSession` for the exact rules.
   */
  rewind(request: RewindRequest): Promise<Event> {
    this.assertOpen();
    return rewindSession(this, request);
  }

  /** Copies a session, up to an event, into a new session (see `forkSession`). */
  fork(request: ForkRequest): Promise<Session> {
    this.assertOpen();
    return forkSession(this, request);
  }

  /**
   * Loads, before the first run, what the first run would load: the model of every LLM agent of
   * the tree is resolved and its adapter and SDK imported (no provider is called). Failures are
   * reported, not thrown; the run that needs the model raises them.
   */
  async warmUp(): Promise<WarmUpReport> {
    this.assertOpen();
    return warmUpAgentTree(this.agent, this.modelRegistry);
  }

  /**
   * Closes the plugins and every agent of the tree (which closes their toolsets, including
   * ones the user passed in, and agents wrapped in `AgentTool`s). Session, artifact and memory
   * services and the model registry belong to the caller and stay open. Idempotent.
   */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  private async closeNow(): Promise<void> {
    this.contentsCache.clear();
    this.usageCache.clear();
    const results = await Promise.allSettled([this.pluginManager.close(), closeAgentTree(this.agent)]);
    const failures = results.flatMap((r) => (r.status === "rejected" ? [r.reason as unknown] : []));
    if (failures.length === 1) throw failures[0];
    if (failures.length > 1) throw new AggregateError(failures, "Runner.close: several resources failed to close");
  }

  /**
   * Shared run loop: beforeRun (a returned content answers instead of the agent), the agent's
   * events one at a time (onEvent, persist, yield; the agent resumes only when the consumer
   * asks for the next event), then afterRun exactly once, also on early stop, abort or error.
   */
  private async *execute(
    ctx: InvocationContext,
    session: Session,
    watch: AbortWatch,
    start: (ctx: InvocationContext) => AsyncGenerator<Event, void, void>,
  ): AsyncGenerator<Event, void, void> {
    let agentRun: AsyncGenerator<Event, void, void> | undefined;
    let stepPending = false;
    let failed = false;
    try {
      const early = await watch.race(this.pluginManager.run("beforeRunCallback", { invocationContext: ctx }));
      if (early) {
        const event = createEvent({
          invocationId: ctx.invocationId,
          author: ctx.agent.name,
          branch: ctx.branch,
          content: { role: early.role ?? "model", parts: early.parts ?? [] },
        });
        applyCustomMetadata(event, ctx.runConfig.customMetadata);
        watch.throwIfAborted();
        await this.sessionService.appendEvent({ session, event });
        yield event;
        return;
      }
      agentRun = start(ctx);
      for (;;) {
        stepPending = true;
        let step: IteratorResult<Event, void>;
        try {
          step = await watch.race(agentRun.next());
        } catch (error) {
          throw watch.isAborted && !(error instanceof RunAbortedError) ? new RunAbortedError({ cause: error }) : error;
        }
        stepPending = false;
        if (step.done) break;
        const event = await this.handleEvent(ctx, session, step.value, watch);
        yield event;
        watch.throwIfAborted();
      }
    } catch (error) {
      failed = true;
      // A used-up budget is an answer too: the client sees (and the session keeps) why the run stopped.
      if (error instanceof BudgetExceededError && !watch.isAborted) {
        yield await this.handleEvent(ctx, session, budgetExceededEvent(ctx, error), watch);
      }
      throw error;
    } finally {
      await this.finishRun(ctx, agentRun, stepPending, failed);
    }
  }

  private async finishRun(
    ctx: InvocationContext,
    agentRun: AsyncGenerator<Event, void, void> | undefined,
    stepPending: boolean,
    failed: boolean,
  ): Promise<void> {
    try {
      if (agentRun) {
        // A generator busy in a step (abort won the race) cannot be awaited: its return is
        // queued and runs the agent's finally blocks once the step settles.
        if (stepPending) agentRun.return(undefined).catch(() => {});
        else await agentRun.return(undefined);
      }
      await this.pluginManager.run("afterRunCallback", { invocationContext: ctx });
    } catch (error) {
      if (!failed) throw error; // never mask the error that ended the run
    }
  }

  private async handleEvent(ctx: InvocationContext, session: Session, event: Event, watch: AbortWatch): Promise<Event> {
    applyCustomMetadata(event, ctx.runConfig.customMetadata);
    recordEventUsage(ctx, event);
    const replaced = await this.pluginManager.run("onEventCallback", { invocationContext: ctx, event });
    const out = replaced ?? event;
    if (replaced) {
      applyCustomMetadata(out, ctx.runConfig.customMetadata);
      recordEventUsage(ctx, out, false);
    }
    if (!out.partial) {
      watch.throwIfAborted();
      await this.sessionService.appendEvent({ session, event: out });
    }
    return out;
  }

  /** Records error responses for calls an earlier run left unanswered (see `closeInterruptedCalls`). */
  private async closeInterruptedCalls(session: Session, watch: AbortWatch): Promise<void> {
    for (const event of closeInterruptedCalls(session.events)) {
      watch.throwIfAborted();
      await this.sessionService.appendEvent({ session, event });
    }
  }

  private async loadSession(userId: string, sessionId: string, autoCreate: boolean): Promise<Session> {
    const key = { appName: this.appName, userId, sessionId };
    const found = await this.sessionService.getSession(key);
    if (found) return found;
    if (!autoCreate) throw new SessionNotFoundError(key);
    try {
      return await this.sessionService.createSession(key);
    } catch (error) {
      // Another run created it in between: use that one.
      if (!(error instanceof SessionAlreadyExistsError)) throw error;
      const again = await this.sessionService.getSession(key);
      if (!again) throw error;
      return again;
    }
  }

  private newContext(init: {
    session: Session;
    runConfig: RunConfig;
    signal?: AbortSignal;
    invocationId?: string;
    liveRequestQueue?: LiveRequestQueue;
  }): InvocationContext {
    return new InvocationContext({
      invocationId: init.invocationId ?? newInvocationId(),
      agent: this.agent,
      session: init.session,
      sessionService: this.sessionService,
      artifactService: this.artifactService,
      memoryService: this.memoryService,
      credentialService: this.credentialService,
      credentialExchangers: this.credentialExchangers,
      pluginManager: this.pluginManager,
      modelRegistry: this.modelRegistry,
      contextCacheConfig: this.contextCacheConfig,
      contentsCache: this.contentsCache,
      runConfig: init.runConfig,
      liveRequestQueue: init.liveRequestQueue,
      signal: init.signal,
      appName: this.appName,
      resumability: this.resumability,
      usage: newUsageTracker({
        session: init.session,
        usageCache: this.usageCache,
        prices: this.prices,
        budget: resolveBudget(this.budget, init.runConfig.budget),
        now: this.now,
      }),
    });
  }

  private assertOpen(): void {
    if (this.closing) throw new ConfigurationError("This Runner is closed; create a new one to run again.");
  }
}

/** The scope a workflow continues its latest run in (its input is in the start record). */
function resumeScope(agent: BaseAgent, message: Content | undefined): NodeScope {
  return { path: agent.name, resume: true, input: message, inputInHistory: message !== undefined };
}

function withUserRole(content: Content): Content {
  return content.role ? content : { ...content, role: "user" };
}
