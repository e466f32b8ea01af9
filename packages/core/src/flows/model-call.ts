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
import type { ModelCallRecorder } from "../usage/usage-tracker.js";
import { ownRequest, returnContents } from "./shared-contents.js";

/**
 * One model call with its callbacks: checks the budget (`BudgetExceededError`), counts the
 * call (throws `LlmCallsLimitExceededError` past the limit), runs before-model callbacks
 * (plugins first; a returned response skips the model), streams the model's responses
 * (their usage recorded) through the after-model callbacks, and turns a model failure into a
 * response: the on-model-error callbacks' stand-in, else an error response (`errorCode` =
 * the error's code or `UNKNOWN_ERROR`). Aborts, the call limit and configuration errors
 * propagate. Callback state writes land in `actions`. Pass `context` to
 * read `context.modelResponseEventId` for each yielded response.
 *
 * The responses come from an iterator for `for await` (one request at a time, as `for await`
 * makes them): it behaves as an async generator would (nothing runs before the first `next()`;
 * the model's stream is closed, its usage counted and lent contents given back when it ends,
 * fails, or the consumer stops early with `return()`), but a response costs one `then` on the
 * model's own promise instead of a generator layer's promise, await and resumption.
 */
export function callModel(
  ctx: InvocationContext,
  agent: LlmAgent,
  request: LlmRequest,
  actions: EventActions,
  context: CallbackContext = new CallbackContext(ctx, actions),
): AsyncIterableIterator<LlmResponse, void, void> {
  return new ModelCallStream(ctx, agent, request, context);
}

const DONE: IteratorReturnResult<void> = Object.freeze({ done: true, value: undefined });

/**
 * `callModel`'s iterator. States: `start` (nothing run yet); `model` (the model's stream is
 * open); `answered` (a before-model callback's response was handed out, nothing to close);
 * `recovered` (a failure's stand-in was handed out, the stream still to close); `done`.
 */
class ModelCallStream implements AsyncIterableIterator<LlmResponse, void, void> {
  private state: "start" | "model" | "answered" | "recovered" | "done" = "start";
  private iterator?: AsyncIterator<LlmResponse, void, void>;
  private usage?: ModelCallRecorder;
  /** The model's stream ended by itself: it needs no `return()` (that would cost a promise and a turn). */
  private ended = false;
  private readonly ctx: InvocationContext;
  private readonly agent: LlmAgent;
  private readonly request: LlmRequest;
  private readonly context: CallbackContext;

  constructor(ctx: InvocationContext, agent: LlmAgent, request: LlmRequest, context: CallbackContext) {
    this.ctx = ctx;
    this.agent = agent;
    this.request = request;
    this.context = context;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<LlmResponse, void>> {
    switch (this.state) {
      case "model":
        return this.pull();
      case "start":
        return this.start();
      case "recovered":
        return this.closeThen(DONE);
      default:
        this.state = "done";
        return Promise.resolve(DONE);
    }
  }

  /** The consumer stops early (`break`, a throw, a `continue` of an outer loop): the stream is closed. */
  return(): Promise<IteratorResult<LlmResponse, void>> {
    if (this.state === "model" || this.state === "recovered") return this.closeThen(DONE);
    this.state = "done";
    return Promise.resolve(DONE);
  }

  /** The model's next result, through `onResult` or `onFailure` (also when its `next()` throws at once). */
  private pull(): Promise<IteratorResult<LlmResponse, void>> {
    let pending: Promise<IteratorResult<LlmResponse, void>>;
    try {
      pending = this.iterator!.next();
    } catch (error) {
      return this.onFailure(error);
    }
    return (pending instanceof Promise ? pending : Promise.resolve(pending)).then(this.onResult, this.onFailure);
  }

  private start(): Promise<IteratorResult<LlmResponse, void>> {
    const { ctx, agent } = this;
    // Anything thrown before the stream opens ends the call as it is: there is nothing to close.
    this.state = "done";
    try {
      ctx.throwIfAborted();
      // The budget is checked before anything of the call happens (BudgetExceededError ends the run).
      ctx.usage.checkBeforeModelCall(agent.name, ctx.branch);
      ctx.incrementLlmCallCount();
      // Only with callbacks: no hook arguments and no turns of the microtask queue for an agent without them.
      if (callbackList(agent.beforeModelCallback).length > 0 || ctx.pluginManager.hasHook("beforeModelCallback"))
        return this.beforeModel();
      this.open();
    } catch (error) {
      return Promise.reject(error);
    }
    return this.next();
  }

  /** Before-model callbacks (plugins first); the first response they return is the call's only one. */
  private async beforeModel(): Promise<IteratorResult<LlmResponse, void>> {
    const { ctx, agent, request, context } = this;
    // Lent contents (see buildLlmRequestLendingContents) are copied before anyone who may edit or
    // keep them: plugins that declare `readsContentsOnly` read the lent array.
    if (ctx.pluginManager.mayEditContents()) ownRequest(request);
    const handed = request.contents;
    let before: LlmResponse | undefined;
    try {
      before = await ctx.pluginManager.run("beforeModelCallback", { context, request });
    } catch (error) {
      returnContents(handed); // no model call will give the history back
      throw error;
    }
    // A plugin that only reads may put an array of its own in the request (a filtered history).
    if (request.contents !== handed) returnContents(handed);
    if (!before && callbackList(agent.beforeModelCallback).length > 0) {
      ownRequest(request);
      before = await runCallbackSlot(agent.beforeModelCallback, { context, request });
    }
    if (before) {
      returnContents(request.contents); // answered without the model: the history goes back now
      this.state = "answered";
      return { value: before, done: false };
    }
    this.open();
    // Awaited here: an async function that returns a promise adopts it, two more microtask turns.
    return await this.next();
  }

  /** Opens the model's stream (anything it throws here propagates: nothing is open yet). */
  private open(): void {
    const { ctx, agent, request } = this;
    const model = agent.resolveModel(ctx);
    if (!model.readsContentsOnly) ownRequest(request);
    const stream = ctx.runConfig.streamingMode === StreamingMode.SSE;
    this.iterator = model.generateContentAsync(request, stream, { signal: ctx.signal });
    this.usage = ctx.usage.startModelCall(model.model);
    this.state = "model";
  }

  /** A result of the model's stream: its end, or a response through the after-model callbacks. */
  private readonly onResult = (
    next: IteratorResult<LlmResponse, void>,
  ): IteratorResult<LlmResponse, void> | Promise<IteratorResult<LlmResponse, void>> => {
    if (next.done) {
      this.ended = true;
      const closing = this.close();
      return closing ? closing.then(() => DONE) : DONE;
    }
    let after: LlmResponse | Promise<LlmResponse>;
    try {
      this.ctx.throwIfAborted();
      this.usage!.record(next.value);
      after = afterModel(this.ctx, this.agent, this.context, next.value);
    } catch (error) {
      return this.fail(error);
    }
    // Callbacks that answer at once cost no promise.
    if (!(after instanceof Promise)) return { value: after, done: false };
    return after.then(
      (value) => ({ value, done: false }),
      (error: unknown) => this.fail(error),
    );
  };

  /** The model's stream failed: an abort or fatal error propagates, anything else becomes a response. */
  private readonly onFailure = (error: unknown): Promise<IteratorResult<LlmResponse, void>> => {
    try {
      this.ctx.throwIfAborted();
    } catch (aborted) {
      return this.fail(aborted);
    }
    if (isFatal(error)) return this.fail(error);
    return this.recover(error).catch((failure: unknown) => this.fail(failure));
  };

  private async recover(error: unknown): Promise<IteratorResult<LlmResponse, void>> {
    const { ctx, agent, request, context } = this;
    this.usage!.end(); // counted now: the error's event is stored before the consumer asks again
    ownRequest(request);
    const recovered =
      (await ctx.pluginManager.run("onModelErrorCallback", { context, request, error })) ??
      (await runCallbackSlot(agent.onModelErrorCallback, { context, request, error }));
    const value = await afterModel(ctx, agent, context, recovered ?? errorResponse(error));
    this.state = "recovered";
    return { value, done: false };
  }

  /** Closes the call, then rejects with `error` (or with what closing threw). */
  private fail(error: unknown): Promise<never> {
    const closing = this.close();
    if (!closing) return Promise.reject(error);
    return closing.then(() => {
      throw error;
    });
  }

  /** Closes the call, then resolves with `result`. */
  private closeThen(result: IteratorResult<LlmResponse, void>): Promise<IteratorResult<LlmResponse, void>> {
    const closing = this.close();
    return closing ? closing.then(() => result) : Promise.resolve(result);
  }

  /**
   * What a generator's `finally` would do: count the call, close the stream, give the history
   * back. Without a stream to close it is done at once (no promise: the usual end of a call).
   */
  private close(): Promise<void> | undefined {
    if (this.state === "done") return undefined;
    this.state = "done";
    this.usage?.end();
    const stream = this.ended ? undefined : this.iterator;
    if (!stream?.return) {
      returnContents(this.request.contents);
      return undefined;
    }
    const giveBack = () => returnContents(this.request.contents);
    return Promise.resolve(stream.return(undefined)).then(giveBack, (error: unknown) => {
      giveBack();
      throw error;
    });
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
