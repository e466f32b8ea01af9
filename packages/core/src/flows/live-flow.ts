import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import type { Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { createEvent, getFunctionCalls, type Event } from "../events/event.js";
import type { BaseLlmConnection } from "../models/base-llm.js";
import type { LlmResponse } from "../models/llm-response.js";
import { createEventActions } from "../events/event-actions.js";
import { checkIncomingMessage } from "./incoming-message-check.js";
import { executeFunctionCalls, hasEffects } from "./function-calling.js";
import { createModelResponseEvent } from "./llm-flow.js";
import { afterModel } from "./model-call.js";
import { buildLlmRequest } from "./request-builder.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * The live (BIDI) flow of an LlmAgent: opens a model connection with the request the text
 * flow would build, sends the history, then concurrently forwards the `LiveRequestQueue`
 * (content -> `sendContent`, persisted as a user event unless it is a tool response; blob ->
 * `sendRealtime`; close -> closes the connection) and yields the model's responses as events.
 * Function calls are executed as in text mode and their responses sent back. It ends when the
 * connection's stream ends (queue closed, model hung up, run aborted) or after a transfer,
 * which continues live with the target agent. The connection is always closed.
 */
export async function* runLiveFlow(ctx: InvocationContext, agent: LlmAgent): AsyncGenerator<Event, void, void> {
  const queue = ctx.liveRequestQueue;
  if (!queue)
    throw new ConfigurationError(
      `Agent "${agent.name}": a live run needs a LiveRequestQueue; start it with runner.runLive().`,
    );
  ctx.throwIfAborted();
  const requestActions = createEventActions();
  const request = await buildLlmRequest(ctx, agent, requestActions);
  // State tools wrote while the request was built is stored like any other write.
  if (hasEffects(requestActions)) {
    yield createEvent({
      invocationId: ctx.invocationId,
      author: agent.name,
      branch: ctx.branch,
      actions: requestActions,
    });
  }
  ctx.incrementLlmCallCount();
  const model = agent.resolveModel(ctx);
  const connection = await model.connect(request, { signal: ctx.signal });

  const stopSending = new AbortController();
  const onAbort = () => {
    stopSending.abort();
    void connection.close().catch(() => {});
  };
  if (ctx.signal?.aborted) onAbort();
  else ctx.signal?.addEventListener("abort", onAbort, { once: true });
  const link = { closedByClient: false };
  let sender: Promise<void> | undefined;
  let senderError: unknown;
  let transferTo: string | undefined;
  try {
    if (request.contents.length > 0) await connection.sendHistory(request.contents);
    sender = forwardRequests(ctx, connection, stopSending.signal, link).catch((error: unknown) => {
      senderError = error;
      void connection.close().catch(() => {});
    });

    const context = new CallbackContext(ctx);
    for await (const raw of connection.receive()) {
      ctx.throwIfAborted();
      const response = await afterModel(ctx, agent, context, raw);
      if (!hasSomethingToShow(response)) continue;
      const event = createModelResponseEvent(
        ctx,
        agent,
        response,
        request.toolsDict,
        undefined,
        context.modelResponseEventId,
      );
      yield event;
      const calls = event.partial ? [] : getFunctionCalls(event);
      if (calls.length === 0) continue;
      const outcome = await executeFunctionCalls(ctx, agent, calls, request.toolsDict);
      const responseEvent = outcome.event;
      if (!responseEvent) continue;
      yield responseEvent;
      // After the client closed the queue the connection is closing: the answer is kept, not sent.
      if (responseEvent.content && !link.closedByClient) await connection.sendContent(responseEvent.content);
      if (responseEvent.actions.transferToAgent) {
        transferTo = responseEvent.actions.transferToAgent;
        break;
      }
    }
  } finally {
    ctx.signal?.removeEventListener("abort", onAbort);
    stopSending.abort();
    await connection.close().catch(() => {});
    await sender;
  }
  if (senderError !== undefined) throw senderError;
  ctx.throwIfAborted();
  if (transferTo && !ctx.isEnded) {
    const target = agent.rootAgent.findAgent(transferTo);
    if (target) yield* target.runLive(ctx);
  }
}

/** Forwards the client's queue to the model until it closes or the flow stops. */
async function forwardRequests(
  ctx: InvocationContext,
  connection: BaseLlmConnection,
  stop: AbortSignal,
  link: { closedByClient: boolean },
): Promise<void> {
  const queue = ctx.liveRequestQueue!;
  for (;;) {
    const request = await queue.get(stop);
    if (stop.aborted) return;
    if (request.close) {
      link.closedByClient = true;
      await connection.close();
      return;
    }
    if (request.blob) await connection.sendRealtime(request.blob);
    if (request.content) {
      // Client data: refused (ending the live run) if it calls a function or answers a call the
      // flow is not waiting for, before it is stored or reaches the model.
      const content: Content = checkIncomingMessage(
        request.content.role ? request.content : { ...request.content, role: "user" },
        sessionEvents(ctx.session),
      );
      // The user's words are history (as in text mode); tool responses are recorded by the flow.
      if (!(content.parts ?? []).some((p) => p.functionResponse)) {
        const event = createEvent({
          invocationId: ctx.invocationId,
          author: "user",
          content,
          customMetadata: ctx.runConfig.customMetadata,
        });
        await ctx.sessionService.appendEvent({ session: ctx.session, event });
      }
      await connection.sendContent(content);
    }
  }
}

/** Responses that carry nothing for the client are dropped (as ADK). */
function hasSomethingToShow(r: LlmResponse): boolean {
  return Boolean(
    r.content ||
      r.errorCode ||
      r.interrupted ||
      r.turnComplete ||
      r.inputTranscription ||
      r.outputTranscription ||
      r.usageMetadata ||
      r.liveSessionResumptionUpdate,
  );
}
