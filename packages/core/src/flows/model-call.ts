import { CallbackContext } from "../context/callback-context.js";
import { callbackList, runCallbackSlot } from "../agents/callbacks.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import { StreamingMode } from "../agents/run-config.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { LlmCallsLimitExceededError, RunAbortedError } from "../errors/run-errors.js";
import type { EventActions } from "../events/event-actions.js";
import { newEventId } from "../events/event.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";
import { ownContents, returnContents } from "./shared-contents.js";

/**
 * One model call with its callbacks: checks the budget (`BudgetExceededError`), counts the
 * call (throws `LlmCallsLimitExceededError` past the limit), runs before-model callbacks
 * (plugins first; a returned response skips the model), streams the model's responses
 * (their usage recorded) through the after-model callbacks, and turns a model failure into a
 * response: the on-model-error callbacks' stand-in, else an error response (`errorCode` =
 * the error's code or `UNKNOWN_ERROR`). Aborts, the call limit and configuration errors
 * propagate. Callback state writes land in `actions`. Pass `context` to
 * read `context.modelResponseEventId` for each yielded response.
 */
export async function* callModel(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
  actions: EventActions,
  context: CallbackContext = new CallbackContext(ctx, actions),
): AsyncGenerator<LlmResponse, void, void> {
  ctx.throwIfAborted();
  // The budget is checked before anything of the call happens (BudgetExceededError ends the run).
  ctx.usage.checkBeforeModelCall(agent.name, ctx.branch);
  ctx.incrementLlmCallCount();
  // Lent contents (see buildLlmRequestLendingContents) are copied before anyone who may edit or
  // keep them: plugins that declare `readsContentsOnly` read the lent array.
  const agentCallbacks = callbackList(agent.beforeModelCallback).length > 0;
  if (agentCallbacks || ctx.pluginManager.hasHook("beforeModelCallback")) {
    if (ctx.pluginManager.mayEditContents()) ownContents(request);
    const handed = request.contents;
    // Only then: no hook arguments and no turns of the microtask queue for an agent without them.
    let before: LlmResponse | undefined;
    try {
      before = await ctx.pluginManager.run("beforeModelCallback", { context, request });
    } catch (error) {
      returnContents(handed); // no model call will give the history back
      throw error;
    }
    // A plugin that only reads may put an array of its own in the request (a filtered history).
    if (request.contents !== handed) returnContents(handed);
    if (!before && agentCallbacks) {
      ownContents(request);
      before = await runCallbackSlot(agent.beforeModelCallback, { context, request });
    }
    if (before) {
      returnContents(request.contents); // answered without the model: the history goes back now
      yield before;
      return;
    }
  }

  const model = agent.resolveModel(ctx);
  if (!model.readsContentsOnly) ownContents(request);
  const stream = ctx.runConfig.streamingMode === StreamingMode.SSE;
  const iterator = model.generateContentAsync(request, stream, { signal: ctx.signal });
  const usage = ctx.usage.startModelCall(model.model);
  // A model generator that has ended needs no `return()` (the call would cost a promise and a turn).
  let ended = false;
  try {
    while (true) {
      let next: IteratorResult<LlmResponse, void>;
      try {
        next = await iterator.next();
      } catch (error) {
        ctx.throwIfAborted();
        if (isFatal(error)) throw error;
        usage.end(); // counted now: the error's event is stored before this generator resumes
        ownContents(request);
        const recovered =
          (await ctx.pluginManager.run("onModelErrorCallback", { context, request, error })) ??
          (await runCallbackSlot(agent.onModelErrorCallback, { context, request, error }));
        yield afterModel(ctx, agent, context, recovered ?? errorResponse(error));
        return;
      }
      if (next.done) {
        ended = true;
        return;
      }
      ctx.throwIfAborted();
      usage.record(next.value);
      // `yield` awaits a promise itself: no second await when the callbacks answer at once.
      yield afterModel(ctx, agent, context, next.value);
    }
  } finally {
    usage.end();
    if (!ended) await iterator.return?.(undefined);
    returnContents(request.contents);
  }
}

/**
 * Plugins first, then the agent's callbacks; the first returned response replaces the model's.
 * Gives the response's event its id first (`context.modelResponseEventId`), so the callbacks
 * can name the event; the flow builds the event with that id.
 */
export function afterModel(
  ctx: InvocationContext,
  agent: LlmAgent,
  context: CallbackContext,
  response: LlmResponse,
): LlmResponse | Promise<LlmResponse> {
  context.modelResponseEventId = newEventId();
  // Without callbacks the response itself: no promise to make and await.
  if (callbackList(agent.afterModelCallback).length === 0 && !ctx.pluginManager.hasHook("afterModelCallback"))
    return response;
  return afterModelHooks(ctx, agent, context, response);
}

async function afterModelHooks(
  ctx: InvocationContext,
  agent: LlmAgent,
  context: CallbackContext,
  response: LlmResponse,
): Promise<LlmResponse> {
  const altered =
    (await ctx.pluginManager.run("afterModelCallback", { context, response })) ??
    (await runCallbackSlot(agent.afterModelCallback, { context, response }));
  return altered ?? response;
}

function isFatal(error: unknown): boolean {
  return (
    error instanceof LlmCallsLimitExceededError ||
    error instanceof RunAbortedError ||
    error instanceof ConfigurationError ||
    (error instanceof Error && error.name === "AbortError")
  );
}

/** A failed model call as a response the flow turns into an error event. */
export function errorResponse(error: unknown): LlmResponse {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return {
    errorCode: code !== undefined && code !== null && code !== "" ? String(code) : "UNKNOWN_ERROR",
    errorMessage: error instanceof Error ? error.message : String(error),
  };
}
