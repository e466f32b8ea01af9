import {
  TaskState,
  type Message,
  type Task,
  type TaskArtifactUpdateEvent,
  type TaskStatusUpdateEvent,
} from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext } from "@a2a-js/sdk/server";
import {
  AgentKitError,
  ConfigurationError,
  type Event,
  type RunConfig,
  type Runner,
  type Session,
  type SessionLockKey,
} from "@agentkit/core";
import {
  KeyedQueue,
  readOrCreateSession,
  SessionQueueKey,
  validateSessionKey,
  withPreloadedSession,
} from "@agentkit/core/internal";
import { z } from "zod";
import { errorMessageOf } from "../errors.js";
import {
  a2aMessageToContent,
  contentToA2aMessage,
  eventMetadata,
  type EventMetadataContext,
} from "../converters/message-converter.js";
import { A2AMetadataKey } from "../converters/metadata.js";
import { artifactUpdateFor, partialStatusUpdate, statusUpdate } from "./update-builders.js";

/** How the executor publishes the agent's events (the spec's `AgentExecutorConfig.OutputMode`). */
export const OutputMode = {
  /** One artifact per complete event (artifact id = event id). */
  ARTIFACT_PER_EVENT: "ARTIFACT_PER_EVENT",
  /** One artifact per run, streamed as one chunk per complete event. */
  ARTIFACT_PER_RUN: "ARTIFACT_PER_RUN",
} as const;
export type OutputMode = (typeof OutputMode)[keyof typeof OutputMode];

/** The spec's name for the executor settings' namespace. */
export const AgentExecutorConfig = { OutputMode } as const;

type MaybePromise<T> = T | Promise<T>;

/**
 * Admits the run of one message: resolves, once the run may start, to the function that ends it
 * (called when the run is over, however it ended). A rejection fails the task with the error's
 * code. It must reject when `run` is aborted while it waits (the task was canceled), and may
 * abort `run` later to stop the run (the task then fails with the abort's reason).
 */
export type AdmitRun = (key: SessionLockKey, run: AbortController) => Promise<() => void>;

export interface A2aAgentExecutorOptions {
  runner: Runner;
  /** Default `ARTIFACT_PER_EVENT`. */
  outputMode?: OutputMode;
  /** Passed to every run; `streamingMode: "sse"` also forwards partial events (as working status updates). */
  runConfig?: RunConfig;
  /** The session's user id; default: the authenticated user's name, else `A2A_USER_<contextId>` (as ADK). */
  resolveUserId?: (requestContext: RequestContext) => MaybePromise<string>;
  /** Called before the run starts (throwing fails the task). */
  beforeExecuteCallback?: (requestContext: RequestContext) => MaybePromise<void>;
  /** Called after each agent event was converted and published. */
  afterEventCallback?: (
    requestContext: RequestContext,
    event: Event,
    update: TaskArtifactUpdateEvent | TaskStatusUpdateEvent,
  ) => MaybePromise<void>;
  /** Called after the final status (completed, failed, input-required) was published. */
  afterExecuteCallback?: (
    requestContext: RequestContext,
    finalStatusUpdate: TaskStatusUpdateEvent,
  ) => MaybePromise<void>;
  /**
   * When a message's run may start. Default: messages of one context (one session) take turns
   * in arrival order, each starting once the previous one's run has ended, so two runs never
   * append to one session at once. `agentkit web --a2a` passes its server's
   * (`ServerContext.admitRun`): A2A runs then also take turns with `/run` calls on the session,
   * count against the server's run rate limits, and are waited for and then aborted by its
   * shutdown like its own runs.
   */
  admitRun?: AdmitRun;
}

const optionsSchema = z.object({
  runner: z.custom<Runner>(
    (v) => !!v && typeof (v as Runner).runAsync === "function",
    "runner must be an agentkit Runner",
  ),
  outputMode: z.enum(["ARTIFACT_PER_EVENT", "ARTIFACT_PER_RUN"]).optional(),
  runConfig: z.record(z.string(), z.unknown()).optional(),
  resolveUserId: z.function().optional(),
  beforeExecuteCallback: z.function().optional(),
  afterEventCallback: z.function().optional(),
  afterExecuteCallback: z.function().optional(),
  admitRun: z.function().optional(),
});

interface RunningTask {
  contextId: string;
  controller: AbortController;
  /** Set by `cancelTask` (which reports `canceled`); any other abort fails the task. */
  canceled: boolean;
}

/**
 * The A2A SDK's `AgentExecutor` for an agentkit `Runner`: the A2A context id is the session id,
 * each request runs the agent once, and its events are published as artifact updates
 * (per event or per run) between a `working` status and a final `completed`, `failed` or
 * `input-required` status. `cancelTask` aborts the run and reports `canceled`.
 */
export class A2aAgentExecutor implements AgentExecutor {
  readonly runner: Runner;
  readonly outputMode: OutputMode;
  private readonly options: A2aAgentExecutorOptions;
  private readonly running = new Map<string, RunningTask>();
  private readonly admitRun: AdmitRun;

  constructor(options: A2aAgentExecutorOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ConfigurationError(
        `Invalid A2aAgentExecutor ` +
          `options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}`,
      );
    }
    this.options = options;
    this.runner = options.runner;
    this.outputMode = options.outputMode ?? OutputMode.ARTIFACT_PER_EVENT;
    this.admitRun = options.admitRun ?? sessionTurns();
  }

  execute = async (requestContext: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = requestContext;
    const task: RunningTask = { contextId, controller: new AbortController(), canceled: false };
    this.running.set(taskId, task);
    const ids = { taskId, contextId };
    let metadataContext: EventMetadataContext = { appName: this.runner.appName, userId: "", sessionId: contextId };
    let release: (() => void) | undefined;
    try {
      bus.publish(AgentEvent.task(requestContext.task ?? newTask(requestContext)));
      await this.options.beforeExecuteCallback?.(requestContext);
      const userId = await this.resolveUserId(requestContext);
      metadataContext = { ...metadataContext, userId };
      // Admitted before the session is read: a message sent while another of its context still
      // runs waits for that run's end, then reads the session with its events.
      const key = { appName: this.runner.appName, userId, sessionId: contextId };
      // A key no store accepts fails the task before it takes a turn or a run allowance.
      validateSessionKey(key);
      release = await this.admitRun(key, task.controller);
      // The context's session, made on its first message.
      const session = await readOrCreateSession(this.runner.sessionService, key);
      bus.publish(AgentEvent.statusUpdate(statusUpdate(ids, TaskState.TASK_STATE_WORKING)));
      const final = await this.runAgent(requestContext, bus, metadataContext, session, task.controller.signal);
      if (task.controller.signal.aborted) throw task.controller.signal.reason;
      bus.publish(AgentEvent.statusUpdate(final));
      await this.options.afterExecuteCallback?.(requestContext, final);
    } catch (thrown) {
      if (task.canceled) return; // cancelTask reported `canceled`
      // Stopped by whoever admitted it (a server shutting down): failed with that reason.
      const error = task.controller.signal.aborted ? task.controller.signal.reason : thrown;
      const code = error instanceof AgentKitError ? error.code : "INTERNAL_ERROR";
      const failed = statusUpdate(ids, TaskState.TASK_STATE_FAILED, errorMessage(ids, errorMessageOf(error), code));
      bus.publish(AgentEvent.statusUpdate(failed));
      await this.options.afterExecuteCallback?.(requestContext, failed);
    } finally {
      release?.();
      this.running.delete(taskId);
      bus.finished();
    }
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const task = this.running.get(taskId);
    if (task) task.canceled = true;
    task?.controller.abort(new Error(`A2A task ${taskId} was canceled.`));
    const ids = { taskId, contextId: task?.contextId ?? "" };
    const message = contentToA2aMessage({ role: "model", parts: [{ text: "The task was canceled." }] }, ids);
    bus.publish(AgentEvent.statusUpdate(statusUpdate(ids, TaskState.TASK_STATE_CANCELED, message)));
    if (!task) bus.finished();
  };

  /** Runs the agent, publishing its events; returns the final status update (not yet published). */
  private async runAgent(
    requestContext: RequestContext,
    bus: ExecutionEventBus,
    metadataContext: EventMetadataContext,
    session: Session,
    signal: AbortSignal,
  ): Promise<TaskStatusUpdateEvent> {
    const ids = { taskId: requestContext.taskId, contextId: requestContext.contextId };
    const perRun = this.outputMode === OutputMode.ARTIFACT_PER_RUN;
    // One artifact per execution: a continued task keeps its earlier runs' artifacts.
    const runArtifactId = `run-${requestContext.userMessage.messageId}`;
    let chunks = 0;
    let last: Event | undefined;
    // Long-running calls of this run still without a response: the task then waits for input.
    const pending = new Map<string, Event>();
    // The session just read (or made): the runner runs on it instead of reading it again.
    const events = this.runner.runAsync(
      withPreloadedSession(
        {
          userId: metadataContext.userId,
          sessionId: requestContext.contextId,
          newMessage: { ...a2aMessageToContent(requestContext.userMessage), role: "user" },
          runConfig: this.options.runConfig,
          signal,
        },
        session,
      ),
    );
    for await (const event of events) {
      if (signal.aborted) break;
      if (!event.content?.parts?.length && !event.errorCode) continue;
      let update: TaskArtifactUpdateEvent | TaskStatusUpdateEvent;
      if (event.partial) {
        update = partialStatusUpdate(ids, event, metadataContext);
      } else {
        last = event;
        for (const id of event.longRunningToolIds ?? []) pending.set(id, event);
        for (const part of event.content?.parts ?? [])
          if (part.functionResponse?.id) pending.delete(part.functionResponse.id);
        if (!event.content?.parts?.length) continue; // an error without content: reported in the final status
        update = artifactUpdateFor(
          ids,
          event,
          metadataContext,
          perRun ? { artifactId: runArtifactId, append: chunks > 0 } : undefined,
        );
        chunks += 1;
      }
      bus.publish("artifact" in update ? AgentEvent.artifactUpdate(update) : AgentEvent.statusUpdate(update));
      await this.options.afterEventCallback?.(requestContext, event, update);
    }
    if (perRun && chunks > 0) {
      bus.publish(AgentEvent.artifactUpdate(closingChunk(ids, runArtifactId)));
    }
    return finalStatus(ids, last, pending, metadataContext);
  }

  private async resolveUserId(requestContext: RequestContext): Promise<string> {
    if (this.options.resolveUserId) return this.options.resolveUserId(requestContext);
    const user = requestContext.context?.user;
    return user?.isAuthenticated && user.userName ? user.userName : `A2A_USER_${requestContext.contextId}`;
  }
}

/** The default `AdmitRun`: runs through this executor take turns per session, in arrival order (core's one serial queue). */
function sessionTurns(): AdmitRun {
  const queue = new KeyedQueue();
  return (key, run) => queue.acquire(SessionQueueKey.of(key), run.signal);
}

function newTask(requestContext: RequestContext): Task {
  return {
    id: requestContext.taskId,
    contextId: requestContext.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [requestContext.userMessage],
    metadata: undefined,
  };
}

function errorMessage(ids: { taskId: string; contextId: string }, text: string, code: string): Message {
  return contentToA2aMessage(
    { role: "model", parts: [{ text }] },
    { ...ids, metadata: { [A2AMetadataKey.ERROR_CODE]: code } },
  );
}

function closingChunk(ids: { taskId: string; contextId: string }, artifactId: string): TaskArtifactUpdateEvent {
  return {
    ...ids,
    artifact: { artifactId, name: "", description: "", parts: [], metadata: undefined, extensions: [] },
    append: true,
    lastChunk: true,
    metadata: undefined,
  };
}

/** The final status: `failed` for an error event, `input-required` for pending long-running calls, else `completed`. */
function finalStatus(
  ids: { taskId: string; contextId: string },
  last: Event | undefined,
  pending: Map<string, Event>,
  context: EventMetadataContext,
): TaskStatusUpdateEvent {
  if (last?.errorCode) {
    return statusUpdate(
      ids,
      TaskState.TASK_STATE_FAILED,
      errorMessage(ids, last.errorMessage ?? `The agent failed (${last.errorCode}).`, last.errorCode),
    );
  }
  if (pending.size > 0) {
    const pendingIds = [...pending.keys()];
    const calls = [...new Set(pending.values())].flatMap((e) =>
      (e.content?.parts ?? []).filter((p) => p.functionCall?.id && pendingIds.includes(p.functionCall.id)),
    );
    const source = [...pending.values()].at(-1)!;
    const message = contentToA2aMessage(
      { role: "model", parts: calls },
      { ...ids, longRunningToolIds: pendingIds, metadata: eventMetadata(source, context) },
    );
    return statusUpdate(ids, TaskState.TASK_STATE_INPUT_REQUIRED, message);
  }
  return statusUpdate(ids, TaskState.TASK_STATE_COMPLETED);
}
