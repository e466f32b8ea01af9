import {
  SessionNotFoundError,
  StreamingMode,
  type Content,
  type Event,
  type RunConfig,
  type Session,
} from "@agentkit/core";
import {
  checkIncomingMessage,
  readOrCreateSession,
  sessionEvents,
  untilAborted,
  withPreloadedSession,
} from "@agentkit/core/internal";
import { ServerDrainingError } from "../errors/server-errors.js";
import type { RouteDeps } from "../routes/route-deps.js";
import type { LogFields } from "../server-logger.js";
import type { RunnerLease } from "./runner-cache.js";
import { cutByShutdown } from "./run-tracker.js";

export interface RunParams {
  appName: string;
  userId: string;
  sessionId: string;
  newMessage?: Content;
  stateDelta?: Record<string, unknown>;
  streaming?: boolean;
  customMetadata?: Record<string, unknown>;
  /** Create the session when it does not exist (Agent Engine style), instead of a 404. */
  createSessionIfMissing?: boolean;
  /** Continue the session's interrupted run (`runner.resume`) instead of running a message. */
  resume?: boolean;
}

/** A run that passed its checks (app and session exist, the session's turn is ours) and may start. */
export interface PreparedRun {
  /** Runs the agent, handing each event to `onEvent` (awaited: back-pressure). Always releases. */
  execute(onEvent: (event: Event) => Promise<void> | void): Promise<void>;
  /** Gives up without running (releases the session slot and the runner). */
  cancel(): void;
  /** What the run's log lines are about: app, user, session, and the invocation once its first event is out. */
  readonly fields: LogFields;
}

/**
 * Does everything that can fail before a run's first event, so `/run_sse` can still answer
 * with a plain JSON error: resolves the app's runner, waits for the session's turn (runs of one
 * session are serialized in this process), and checks the session exists. `controller` (aborted
 * by the client's disconnect or by shutdown) ends each of these steps at once, even one waiting
 * for a store that does not answer, releasing the runner and the session's turn; later it
 * cancels the run.
 */
export async function prepareRun(
  deps: RouteDeps,
  params: RunParams,
  controller: AbortController,
): Promise<PreparedRun> {
  if (deps.runs.isDraining) throw new ServerDrainingError();
  deps.rateLimiter.take(params.appName, params.userId);
  const fields: LogFields = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
  // Tracked from here: shutdown aborts a run still waiting for its turn like a running one.
  const tracked = deps.runs.start(controller, fields);
  let lease: RunnerLease;
  try {
    // A lease that comes back after the abort is given back at once.
    lease = await untilAborted(deps.runners.acquire(params.appName), controller.signal, {
      discard: (late) => late.release(),
    });
  } catch (error) {
    tracked();
    throw cutByShutdown(controller.signal) ? new ServerDrainingError() : error;
  }
  let release: (() => void) | undefined;
  let session: Session;
  try {
    const key = { appName: params.appName, userId: params.userId, sessionId: params.sessionId };
    // Before anything of the run is stored: a run refused here (busy, aborted) leaves no trace.
    release = await deps.queue.acquireSession(key, controller.signal);
    if (deps.runs.isDraining) throw new ServerDrainingError();
    // Read once, here: a missing session is a 404 and a refused answer to a pending call a plain
    // JSON 400 (on /run_sse too, before its stream starts); the runner then runs on this read
    // (`withPreloadedSession`) instead of making its own. No other run of the session can append
    // in between: this request holds the session's turn until the run ends.
    const found = await untilAborted(findSession(deps, key, params.createSessionIfMissing), controller.signal);
    if (!found) throw new SessionNotFoundError(key);
    if (params.newMessage) checkIncomingMessage(params.newMessage, sessionEvents(found));
    session = found;
  } catch (error) {
    release?.();
    lease.release();
    tracked();
    // A wait for the session's turn cut by shutdown is a 503, not a client abort.
    throw cutByShutdown(controller.signal) ? new ServerDrainingError() : error;
  }
  const done = () => {
    release?.();
    lease.release();
    tracked();
  };
  return {
    cancel: done,
    fields,
    async execute(onEvent) {
      let outcome = "failed";
      try {
        const runConfig: RunConfig = {
          streamingMode: params.streaming ? StreamingMode.SSE : StreamingMode.NONE,
          ...(params.customMetadata ? { customMetadata: params.customMetadata } : {}),
        };
        const events = params.resume
          ? lease.runner.resume(
              withPreloadedSession(
                { userId: params.userId, sessionId: params.sessionId, runConfig, signal: controller.signal },
                session,
              ),
            )
          : lease.runner.runAsync(
              withPreloadedSession(
                {
                  userId: params.userId,
                  sessionId: params.sessionId,
                  ...(params.newMessage ? { newMessage: params.newMessage } : {}),
                  ...(params.stateDelta ? { stateDelta: params.stateDelta } : {}),
                  runConfig,
                  signal: controller.signal,
                },
                session,
              ),
            );
        for await (const event of events) {
          if (!fields.invocationId && event.invocationId) fields.invocationId = event.invocationId;
          // Awaited only when it returns a promise (SSE's back-pressure): `/run` collects events
          // synchronously, and an `await` of a plain value still costs a microtask turn per event.
          const handled = onEvent(event);
          if (handled) await handled;
        }
        outcome = "finished";
      } finally {
        done();
        deps.logger.debug?.(`Run ${outcome}`, fields);
      }
    },
  };
}

/** The run's session, its whole history (the run works on it), created when asked to. */
async function findSession(
  deps: RouteDeps,
  key: { appName: string; userId: string; sessionId: string },
  createIfMissing: boolean | undefined,
): Promise<Session | undefined> {
  const sessions = deps.context.sessionService;
  return createIfMissing ? readOrCreateSession(sessions, key) : sessions.getSession(key);
}
