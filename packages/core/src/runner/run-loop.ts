import type { Content } from "../content/content.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { BudgetExceededError } from "../errors/budget-errors.js";
import { RunAbortedError } from "../errors/run-errors.js";
import { isThenable } from "../concurrency/is-thenable.js";
import { createEvent, type Event } from "../events/event.js";
import { appendNow } from "../sessions/base-session-service.js";
import type { Session } from "../sessions/session.js";
import { AbortWatch, applyCustomMetadata } from "./run-helpers.js";
import type { Runner } from "./runner.js";
import { budgetExceededEvent, recordEventUsage } from "./run-usage.js";

/** What the run loop uses of its runner. */
export type RunLoopServices = Pick<Runner, "pluginManager" | "sessionService">;

/** A run ready to start: its session loaded (and the user's turn stored, for `runAsync`). */
export interface RunStart {
  ctx: InvocationContext;
  session: Session;
  /** The agent's events: `runAsync` or `runLive` of the agent the run is for. */
  start: (ctx: InvocationContext) => AsyncGenerator<Event, void, void>;
  /** After a run that completed (not on break, abort or error): an event to yield, not stored (compaction's failure). */
  afterCompleted?: () => Promise<Event | undefined>;
}

/**
 * Every kind of run (`runAsync`, `resume`, `runLive`) as one generator: the run's own steps
 * (`prepare`: check the runner and the signal, load the session, store the user's turn, each
 * wait raced against the signal through `watch`), then
 * beforeRun (a returned content answers instead of the agent), the agent's events one at a time
 * (onEvent, persist, yield; the agent resumes only when the consumer asks for the next event),
 * then afterRun exactly once, also on early stop, abort or error, and last `afterCompleted` when
 * the run completed. A used-up budget ends the run with an event saying so before the error is
 * thrown. One generator rather than one per kind around a shared one: a layer forwarding each
 * event costs promises and microtask turns per event. Nothing runs before the consumer asks for
 * the first event.
 */
export async function* runLoop(
  runner: RunLoopServices,
  signal: AbortSignal | undefined,
  prepare: (watch: AbortWatch) => Promise<RunStart>,
): AsyncGenerator<Event, void, void> {
  const watch = new AbortWatch(signal);
  try {
    const { ctx, session, start, afterCompleted } = await prepare(watch);
    let agentRun: AsyncGenerator<Event, void, void> | undefined;
    let stepPending = false;
    let failed: { error: unknown } | undefined;
    /** beforeRun while it runs: an abort can end the run before it settles. */
    let beforeRun: Promise<unknown> | undefined;
    try {
      // Hooks are awaited only when a plugin has them (no arguments, no microtask turns otherwise).
      let early: Content | undefined;
      if (runner.pluginManager.hasHook("beforeRunCallback")) {
        const running = runner.pluginManager.run("beforeRunCallback", { invocationContext: ctx });
        beforeRun = running;
        early = await watch.race(running);
        beforeRun = undefined;
      }
      if (early) {
        const event = createEvent({
          invocationId: ctx.invocationId,
          author: ctx.agent.name,
          branch: ctx.branch,
          content: { role: early.role ?? "model", parts: early.parts ?? [] },
        });
        applyCustomMetadata(event, ctx.runConfig.customMetadata);
        watch.throwIfAborted();
        await runner.sessionService.appendEvent({ session, event });
        yield event;
      } else agentRun = start(ctx);
      while (agentRun) {
        stepPending = true;
        let step: IteratorResult<Event, void>;
        try {
          step = await watch.race(agentRun.next());
        } catch (error) {
          throw watch.isAborted && !(error instanceof RunAbortedError) ? new RunAbortedError({ cause: error }) : error;
        }
        stepPending = false;
        if (step.done) {
          agentRun = undefined; // finished: nothing to return (a `return()` would cost a promise and a turn)
          break;
        }
        // The in-memory store stores an event within the call: no promise to wait for then.
        const handled = handleEvent(runner, ctx, session, step.value, watch);
        const event = isThenable(handled) ? await handled : handled;
        yield event;
        watch.throwIfAborted();
      }
    } catch (error) {
      failed = { error };
      // A used-up budget is an answer too: the client sees (and the session keeps) why the run stopped.
      if (error instanceof BudgetExceededError && !watch.isAborted) {
        yield await handleEvent(runner, ctx, session, budgetExceededEvent(ctx, error), watch);
      }
      throw error;
    } finally {
      // Only with something to do (an agent to stop, afterRun plugins): no promise and no turn otherwise.
      if (agentRun || runner.pluginManager.hasHook("afterRunCallback"))
        await finishRun(runner, ctx, agentRun, stepPending, failed, beforeRun);
    }
    // Reached only when the run completed (not on break, abort or error).
    const extra = afterCompleted ? await afterCompleted() : undefined;
    if (extra) yield extra;
  } finally {
    watch.dispose();
  }
}

/** Stops the agent's generator and runs afterRun; an error here never hides the one that ended the run. */
async function finishRun(
  runner: RunLoopServices,
  ctx: InvocationContext,
  agentRun: AsyncGenerator<Event, void, void> | undefined,
  stepPending: boolean,
  failed: { error: unknown } | undefined,
  beforeRun: Promise<unknown> | undefined,
): Promise<void> {
  const afterRun = () =>
    runner.pluginManager.runAll("afterRunCallback", {
      invocationContext: ctx,
      ...(failed ? { error: failed.error } : {}),
    });
  try {
    if (agentRun) {
      // A generator busy in a step (abort won the race) cannot be awaited: its return is
      // queued and runs the agent's finally blocks once the step settles.
      if (stepPending) agentRun.return(undefined).catch(() => {});
      else await agentRun.return(undefined);
    }
    if (!runner.pluginManager.hasHook("afterRunCallback")) return;
    // Aborted while beforeRun still ran: afterRun follows it once it settles (a plugin cleans up
    // after it set up), without holding the aborted run's end. The abort is the run's error.
    if (beforeRun) return void beforeRun.then(afterRun, afterRun).catch(() => {});
    await afterRun();
  } catch (error) {
    if (!failed) throw error; // never mask the error that ended the run
  }
}

/**
 * One event of the agent: the run's custom metadata and usage, onEvent plugins (which may
 * replace it), then stored unless partial. Gives what the caller yields, or a promise of it. Not
 * an async function: without an onEvent plugin a store that answers at once makes no promise,
 * and any other store's own promise is the only one made (an async frame per event cost the run
 * loop a promise and turns of the microtask queue); a check that fails throws in the caller's
 * frame, where a rejection would land too.
 */
function handleEvent(
  runner: RunLoopServices,
  ctx: InvocationContext,
  session: Session,
  event: Event,
  watch: AbortWatch,
): Event | Promise<Event> {
  applyCustomMetadata(event, ctx.runConfig.customMetadata);
  recordEventUsage(ctx, event);
  if (!runner.pluginManager.hasHook("onEventCallback")) return persistEvent(runner, session, event, watch);
  return runner.pluginManager.run("onEventCallback", { invocationContext: ctx, event }).then((replaced) => {
    if (!replaced) return persistEvent(runner, session, event, watch);
    applyCustomMetadata(replaced, ctx.runConfig.customMetadata);
    recordEventUsage(ctx, replaced, false);
    return persistEvent(runner, session, replaced, watch);
  });
}

/** Persists a complete event (a partial one is yielded only); gives the event itself, or a promise of it. */
function persistEvent(
  runner: RunLoopServices,
  session: Session,
  event: Event,
  watch: AbortWatch,
): Event | Promise<Event> {
  if (event.partial) return event;
  watch.throwIfAborted();
  const stored = appendNow(runner.sessionService, { session, event });
  return isThenable(stored) ? stored.then(() => event) : event;
}
