import type { BaseAgent } from "../agents/base-agent.js";
import type { ResumabilityConfig } from "../context/invocation-context.js";
import { type ResolvedRunConfig, resolveRunConfig, type RunConfig, StreamingMode } from "../agents/run-config.js";
import type { BaseArtifactService } from "../artifacts/base-artifact-service.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { NotResumableError, NothingToResumeError } from "../errors/run-errors.js";
import { SessionNotFoundError } from "../errors/session-errors.js";
import type { Event } from "../events/event.js";
import type { BaseMemoryService } from "../memory/base-memory-service.js";
import type { ContextCacheConfig } from "../models/llm-request.js";
import type { ModelRegistry } from "../models/model-registry.js";
import type { PluginManager } from "../plugins/plugin-manager.js";
import type { BaseSessionService } from "../sessions/base-session-service.js";
import { InMemorySessionService } from "../sessions/in-memory-session-service.js";
import type { Session } from "../sessions/session.js";
import type { App, EventsCompactionConfig, EventsSummarizer } from "./app.js";
import { ContentsCache } from "../flows/contents-cache.js";
import { closeAgentTree } from "./close-agents.js";
import { forkSession, type ForkRequest } from "./fork-session.js";
import { rewindSession, type RewindRequest } from "./rewind-session.js";
import { warmUpAgentTree, type WarmUpReport } from "./warm-up.js";
import { compactAfterRun } from "./compact-after-run.js";
import { ephemeralRunnerOptions } from "./ephemeral-runner-options.js";
import { findAgentToRun } from "./find-agent-to-run.js";
import { findInterruptedRun, findResumeTarget, resumeScope } from "./resume-target.js";
import { storeInterruptedCallResponses } from "./interrupted-calls.js";
import { loadRunSession } from "./load-run-session.js";
import { preloadedSession } from "./preloaded-session.js";
import { newRunContext } from "./run-context.js";
import type { AbortWatch } from "./run-helpers.js";
import { type RunStart, runLoop } from "./run-loop.js";
import type {
  RunAsyncRequest,
  RunEphemeralRequest,
  RunLiveRequest,
  ResumeRequest,
  RunnerOptions,
} from "./runner-options.js";
import { resolveRunnerSettings } from "./runner-settings.js";
import { appendUserTurn, checkedUserMessage } from "./user-turn.js";
import type { Budget } from "../usage/budget.js";
import type { PriceTable } from "../usage/price-table.js";
import { sessionUsageFromEvents, type SessionUsage } from "../usage/session-usage.js";
import { SessionUsageCache } from "../usage/session-usage-cache.js";
import { InMemoryCredentialService, type BaseCredentialService } from "../auth/base-credential-service.js";
import { CredentialExchangerRegistry } from "../auth/credential-exchangers.js";
import { sessionEvents } from "../sessions/session-events.js";
import { settleAll } from "../concurrency/settle-all.js";

// A runner's steps live in files of their own: its options (runner-options.ts) and settings
// (runner-settings.ts), the session of a run (load-run-session.ts) and its root context
// (run-context.ts), the user's turn (user-turn.ts), the loop every run shares (run-loop.ts), and
// the session-history operations (rewind-session.ts, fork-session.ts). This class wires them.

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
  readonly usageCache = new SessionUsageCache();
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
    const settings = resolveRunnerSettings(options);
    this.app = settings.app;
    this.agent = settings.agent;
    this.appName = settings.appName;
    this.pluginManager = settings.pluginManager;
    this.eventsCompactionConfig = settings.eventsCompactionConfig;
    this.contextCacheConfig = settings.contextCacheConfig;
    this.budget = settings.budget;
    this.prices = settings.prices;
    this.resumability = settings.resumability;
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
  runAsync(request: RunAsyncRequest): AsyncGenerator<Event, void, void> {
    return runLoop(this, request.signal, (watch) => this.startRun(request, watch));
  }

  /**
   * The session a run (of `runAsync` or `runLive`) works on, once the runner is open and the
   * signal not aborted; created when the run config asks for that (`autoCreateSession`). A
   * session the caller read just before and handed over (`withPreloadedSession`) is used as it
   * is, not read again. Not an async function: the caller awaits the session itself (an async
   * layer here cost each run a promise and two turns of the microtask queue); the checks throw
   * in the caller's frame.
   */
  private openSession(
    request: { userId: string; sessionId: string },
    config: RunConfig,
    watch: AbortWatch,
  ): { session: Session | Promise<Session>; runConfig: ResolvedRunConfig } {
    this.assertOpen();
    watch.throwIfAborted();
    const runConfig = resolveRunConfig(config);
    const session =
      preloadedSession(request, this.appName) ??
      watch.race(loadRunSession(this, request.userId, request.sessionId, runConfig.autoCreateSession));
    return { session, runConfig };
  }

  /** `runAsync`'s own steps before the loop: the session, the user's turn, the agent to run. */
  private async startRun(request: RunAsyncRequest, watch: AbortWatch): Promise<RunStart> {
    const opened = this.openSession(request, request.runConfig ?? {}, watch);
    const session = opened.session instanceof Promise ? await opened.session : opened.session;
    const runConfig = opened.runConfig;
    const rootContext = newRunContext(this, {
      session,
      runConfig,
      signal: request.signal,
      invocationId: request.invocationId,
      now: this.now,
    });
    // Checked against the history as it was, before the interrupted calls are closed.
    const checked = checkedUserMessage(request.newMessage, sessionEvents(session));
    const interrupted = storeInterruptedCallResponses(this.sessionService, session, watch);
    if (interrupted) await interrupted;
    const turn = appendUserTurn(this, {
      ctx: rootContext,
      session,
      message: checked,
      stateDelta: request.stateDelta,
      watch,
    });
    const message = turn instanceof Promise ? await turn : turn;

    // In a resumable app an answer continues the paused workflow run it belongs to.
    const resumeTarget = this.resumability?.isResumable ? findResumeTarget(session, this.agent) : undefined;
    const agent = resumeTarget ?? findAgentToRun(session, this.agent);
    const ctx = rootContext.withAgent(agent, {
      userContent: message,
      nodeScope: resumeTarget ? resumeScope(resumeTarget, message) : undefined,
    });
    const compaction = this.eventsCompactionConfig;
    return {
      ctx,
      session,
      start: (c) => c.agent.runAsync(c),
      // Yielded, not stored: the caller learns of a failed compaction; the session keeps only the run.
      ...(compaction
        ? {
            afterCompleted: () =>
              compactAfterRun({
                config: compaction,
                rootAgent: this.agent,
                ctx,
                session,
                sessionService: this.sessionService,
                signal: request.signal,
                fallback: this.compactionFallback,
              }),
          }
        : {}),
    };
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
    // Never closed: closing would close the agents' toolsets and plugins this runner shares.
    const runner = new Runner(ephemeralRunnerOptions(this, sessionService, this.now));
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
  resume(request: ResumeRequest): AsyncGenerator<Event, void, void> {
    return runLoop(this, request.signal, async (watch) => {
      this.assertOpen();
      if (!this.resumability?.isResumable) throw new NotResumableError();
      watch.throwIfAborted();
      const runConfig = resolveRunConfig(request.runConfig);
      const session =
        preloadedSession(request, this.appName) ??
        (await watch.race(loadRunSession(this, request.userId, request.sessionId, false)));
      const target = findInterruptedRun(session, this.agent);
      if (!target) throw new NothingToResumeError(request.sessionId);
      const rootContext = newRunContext(this, { session, runConfig, signal: request.signal, now: this.now });
      const interrupted = storeInterruptedCallResponses(this.sessionService, session, watch);
      if (interrupted) await interrupted;
      const ctx = rootContext.withAgent(target, { nodeScope: resumeScope(target, undefined) });
      return { ctx, session, start: (c) => c.agent.runAsync(c) };
    });
  }

  /**
   * Runs the agent in live (BIDI) mode: the agent reads `liveRequestQueue` and yields model
   * output as events (persisted like `runAsync`'s, complete ones only) until the queue is
   * closed, the model ends the connection or `signal` aborts (`RunAbortedError`).
   */
  runLive(request: RunLiveRequest): AsyncGenerator<Event, void, void> {
    return runLoop(this, request.signal, async (watch) => {
      const opened = this.openSession(request, { ...request.runConfig, streamingMode: StreamingMode.BIDI }, watch);
      const session = opened.session instanceof Promise ? await opened.session : opened.session;
      const runConfig = opened.runConfig;
      const rootContext = newRunContext(this, {
        session,
        runConfig,
        signal: request.signal,
        liveRequestQueue: request.liveRequestQueue,
        now: this.now,
      });
      const interrupted = storeInterruptedCallResponses(this.sessionService, session, watch);
      if (interrupted) await interrupted;
      const ctx = rootContext.withAgent(findAgentToRun(session, this.agent));
      return { ctx, session, start: (c) => c.agent.runLive(c) };
    });
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
    return sessionUsageFromEvents(sessionEvents(session), this.prices);
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
    await settleAll(
      [this.pluginManager.close(), closeAgentTree(this.agent)],
      () => "Runner.close: several resources failed to close",
    );
  }

  private assertOpen(): void {
    if (this.closing) throw new ConfigurationError("This Runner is closed; create a new one to run again.");
  }
}
