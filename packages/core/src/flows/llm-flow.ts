import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import type { LlmAgent } from "../agents/llm-agent.js";
import type { FunctionCall } from "../content/content.js";
import { createEventActions, type EventActions } from "../events/event-actions.js";
import {
  createEvent,
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  newEventId,
  type Event,
  type EventInit,
} from "../events/event.js";
import type { LlmResponse } from "../models/llm-response.js";
import type { BaseTool } from "../tools/base-tool.js";
import { buildConfirmationRequestEvent, resumeConfirmedToolCalls } from "./confirmation.js";
import { buildCredentialRequestEvent } from "../auth/credential-request.js";
import { resumeAuthorizedToolCalls } from "./credential-resume.js";
import {
  executeFunctionCalls,
  type FunctionCallsOutcome,
  generateFunctionCallId,
  getLongRunningCallIds,
  hasEffects,
  populateFunctionCallIds,
} from "./function-calling.js";
import { executeCodeInResponse, preprocessCodeExecution, saveModelSideImages } from "./code-execution.js";
import { callModel } from "./model-call.js";
import { buildSuspendedCallEvent, resumeSuspendedToolCalls } from "./suspended-tools.js";
import { buildLlmRequestLendingContents } from "./request-builder.js";
import { newestUserEventAnswersCalls } from "./answers-calls.js";
import { deepCopy } from "../content/deep-copy.js";
import { saveOutputToState } from "./output-key.js";
import { sessionEvents } from "../sessions/session-events.js";
import { hasOwnKeys } from "../sessions/own-keys.js";

/**
 * The text-mode loop of an LlmAgent: steps (build request, call model, run tools) until a
 * step ends with a final response (text answer, `skipSummarization`, a long-running pause, a
 * confirmation request, an error), the invocation is ended, or the run is aborted. The
 * agent's final answer is saved under its `outputKey` as it is yielded.
 *
 * Relies on the runner's contract: every non-partial event yielded is appended to the
 * session before the generator resumes, so the next step's history includes it.
 *
 * One generator, each step a turn of the loop (`continue steps` ends it), rather than a generator
 * per step forwarded by this one: a forwarding layer costs promises and microtask turns per event.
 */
export async function* runLlmFlow(ctx: InvocationContext, agent: LlmAgent): AsyncGenerator<Event, void, void> {
  let step: StepEvents;
  steps: do {
    step = new StepEvents(agent);
    ctx.throwIfAborted();
    if (
      newestUserEventAnswersCalls(sessionEvents(ctx.session), ctx.branch) &&
      (yield* noted(resumeAnsweredCalls(ctx, agent), step))
    )
      continue;
    if (ctx.isEnded) continue;

    // One actions object for the step: state written while building the request (tools'
    // processLlmRequest) or by model callbacks is stored with the step's model event.
    const actions = createEventActions();
    // Awaited only when the build waited for something (an `await` of a value costs a microtask turn).
    const built = buildLlmRequestLendingContents(ctx, agent, actions);
    const request = built instanceof Promise ? await built : built;
    // Without a code executor there is nothing to prepare (and no promise to await).
    const inputFiles = agent.codeExecutor ? await preprocessCodeExecution(agent, request) : [];
    const context = new CallbackContext(ctx, actions);
    let stored = false;
    for await (const modelResponse of callModel(ctx, agent, request, actions, context)) {
      let response = modelResponse;
      if (agent.codeExecutor?.modelSide)
        response = await saveModelSideImages(ctx, response, actions, context.modelResponseEventId);
      else if (agent.codeExecutor) {
        const makeEvent = (r: LlmResponse) =>
          createModelResponseEvent(ctx, agent, r, request.toolsDict, actions, context.modelResponseEventId);
        // Code in the response was run: its events are out and the model is called again.
        if (yield* noted(executeCodeInResponse(ctx, agent, response, inputFiles, makeEvent), step)) continue steps;
      }
      // Nothing to show (e.g. a usage-only chunk): skip, as ADK does.
      if (!response.content && !response.errorCode && !response.interrupted) continue;
      const event = createModelResponseEvent(
        ctx,
        agent,
        response,
        request.toolsDict,
        actions,
        context.modelResponseEventId,
      );
      const calls = event.partial ? [] : getFunctionCalls(event);
      const pause = calls.length > 0 && ctx.runConfig.pauseOnToolCalls === true;
      // Paused calls are pending like long-running ones: the client may answer them next run.
      if (pause)
        event.longRunningToolIds = [...new Set([...(event.longRunningToolIds ?? []), ...calls.map((c) => c.id!)])];
      yield step.note(event);
      if (event.partial) continue;
      stored = true;
      if (pause) {
        ctx.end();
        continue steps;
      }
      if (calls.length === 0) continue;
      // The calls run here and their response is yielded by this generator; only a response
      // that asks for more (a pause, a structured answer, a transfer) goes through a second one.
      const outcome = await executeFunctionCalls(ctx, agent, calls, request.toolsDict);
      const responseEvent = outcome.event;
      // Built before the response is stored: a credential the user cannot be asked for answers its call with an error.
      const credentialRequest =
        responseEvent && hasOwnKeys(responseEvent.actions.requestedAuthConfigs)
          ? await buildCredentialRequestEvent(ctx, agent.name, calls, responseEvent, generateFunctionCallId)
          : undefined;
      if (responseEvent) yield step.note(responseEvent);
      // Read once the response is stored: an onEvent plugin may have changed its actions.
      if (asksForMore(outcome, credentialRequest))
        yield* afterFunctionResponse(ctx, agent, calls, outcome, credentialRequest, step);
    }
    // The model said nothing worth an event, but the step changed state: keep the change.
    if (!stored && hasEffects(actions)) {
      yield step.note(
        createEvent({
          invocationId: ctx.invocationId,
          author: agent.name,
          branch: ctx.branch,
          actions: deepCopy(actions),
        }),
      );
    }
  } while (anotherStep(step, ctx));
}

/** Whether the step just ended calls for another: its last event was complete but not final, and the invocation goes on. */
function anotherStep(step: StepEvents, ctx: InvocationContext): boolean {
  const last = step.last;
  return last !== undefined && !last.partial && !isFinalResponse(last) && !ctx.isEnded;
}

/**
 * What the flow does with each event it yields, at the yield itself: the agent's answer is saved
 * under its `outputKey`, and the step's last event decides whether another step follows. Done
 * where the event is made rather than in a layer that forwards every event (each `for await …
 * yield` layer costs promises and microtask turns per event).
 */
class StepEvents {
  last: Event | undefined;
  private readonly agent: LlmAgent;

  constructor(agent: LlmAgent) {
    this.agent = agent;
  }

  note(event: Event): Event {
    saveOutputToState(this.agent, event);
    this.last = event;
    return event;
  }
}

/** Yields what `events` yields, each noted, and returns its result: for the paths off the common one. */
async function* noted<R>(events: AsyncGenerator<Event, R, void>, step: StepEvents): AsyncGenerator<Event, R, void> {
  let finished = false;
  try {
    while (true) {
      const next = await events.next();
      if (next.done) {
        finished = true;
        return next.value;
      }
      yield step.note(next.value);
    }
  } finally {
    // Stopped early (the consumer broke off, or a step failed): the inner generator's finally blocks run.
    if (!finished) await events.return(undefined as R);
  }
}

/**
 * Resumes what the newest user event answers: confirmed tool calls, authorized ones (whose
 * answers may ask again), suspended ones. True when the step ends here (a new pause).
 */
async function* resumeAnsweredCalls(ctx: InvocationContext, agent: LlmAgent): AsyncGenerator<Event, boolean, void> {
  const resumed = await resumeConfirmedToolCalls(ctx, agent);
  if (resumed) yield resumed;
  const authorized = await resumeAuthorizedToolCalls(ctx, agent);
  if (authorized) {
    // Answered calls may ask again (e.g. for a second credential): pause once more.
    const calls = getFunctionResponses(authorized).map((r) => ({ id: r.id, name: r.name }));
    const again = await buildCredentialRequestEvent(ctx, agent.name, calls, authorized, generateFunctionCallId);
    yield authorized;
    if (again) {
      yield again;
      return true;
    }
  }
  if (ctx.isEnded) return true;
  const continued = await resumeSuspendedToolCalls(ctx, agent);
  if (continued) {
    if (continued.event) yield continued.event;
    if (continued.suspensions) {
      for (const { call, suspension } of continued.suspensions)
        yield buildSuspendedCallEvent(ctx, agent, call, suspension);
      return true;
    }
  }
  return false;
}

/**
 * The event for one model response: authored by the agent, response fields copied,
 * `customMetadata` merged over the run's, function calls given `adk-` ids where the model
 * sent none, and long-running calls listed in `longRunningToolIds`. `eventId` is the id the
 * after-model callbacks were told (`CallbackContext.modelResponseEventId`).
 */
export function createModelResponseEvent(
  ctx: InvocationContext,
  agent: LlmAgent,
  response: LlmResponse,
  toolsDict: Record<string, BaseTool>,
  actions?: EventActions,
  eventId?: string,
): Event {
  const customMetadata =
    ctx.runConfig.customMetadata || response.customMetadata
      ? { ...ctx.runConfig.customMetadata, ...response.customMetadata }
      : undefined;
  // Only the fields the response has: createEvent drops undefined ones anyway, and walking the
  // two dozen keys of every response field costs more than the checks (a test compares this
  // with the init that names them all). No member is undefined, so createEvent copies the init
  // with one spread instead of key by key; `id` is set here to keep its place as the first key.
  const init: EventInit = { id: eventId ?? newEventId(), invocationId: ctx.invocationId, author: agent.name };
  if (ctx.branch !== undefined) init.branch = ctx.branch;
  if (response.content) init.content = deepCopy(response.content);
  if (response.partial !== undefined) init.partial = response.partial;
  if (response.turnComplete !== undefined) init.turnComplete = response.turnComplete;
  if (response.finishReason !== undefined) init.finishReason = response.finishReason;
  if (response.usageMetadata !== undefined) init.usageMetadata = response.usageMetadata;
  if (response.errorCode !== undefined) init.errorCode = response.errorCode;
  if (response.errorMessage !== undefined) init.errorMessage = response.errorMessage;
  if (response.groundingMetadata !== undefined) init.groundingMetadata = response.groundingMetadata;
  if (response.citationMetadata !== undefined) init.citationMetadata = response.citationMetadata;
  if (customMetadata !== undefined) init.customMetadata = customMetadata;
  if (response.modelVersion !== undefined) init.modelVersion = response.modelVersion;
  if (response.avgLogprobs !== undefined) init.avgLogprobs = response.avgLogprobs;
  if (response.logprobsResult !== undefined) init.logprobsResult = response.logprobsResult;
  if (response.cacheMetadata !== undefined) init.cacheMetadata = response.cacheMetadata;
  if (response.interrupted !== undefined) init.interrupted = response.interrupted;
  if (response.inputTranscription !== undefined) init.inputTranscription = response.inputTranscription;
  if (response.outputTranscription !== undefined) init.outputTranscription = response.outputTranscription;
  if (response.liveSessionResumptionUpdate !== undefined)
    init.liveSessionResumptionUpdate = response.liveSessionResumptionUpdate;
  // Always present, as in the full init: a missing `actions` key would move it after `timestamp`
  // (createEvent fills `{}` as it fills a missing one).
  init.actions = actions ? deepCopy(actions) : {};
  const event = createEvent(init);
  const longRunning = getLongRunningCallIds(populateFunctionCallIds(event), toolsDict);
  if (longRunning.length > 0) event.longRunningToolIds = longRunning;
  return event;
}

/**
 * Whether a stored function response is followed by more events of its step: what a call waits
 * for (suspensions, a credential or a confirmation to ask for), a `set_model_response` answer,
 * or a transfer to another agent.
 */
function asksForMore(outcome: FunctionCallsOutcome, credentialRequest: Event | undefined): boolean {
  if (outcome.suspensions || credentialRequest) return true;
  const event = outcome.event;
  if (!event) return false;
  return (
    hasOwnKeys(event.actions.requestedToolConfirmations) ||
    outcome.structuredOutput !== undefined ||
    event.actions.transferToAgent !== undefined
  );
}

/**
 * What follows a stored function response (see `asksForMore`), in order: every request of a step
 * whose calls suspended (the turn ends); else the credential request, or the confirmation
 * request (the turn ends), or the structured final answer of a `set_model_response` call, or the
 * events of the agent transferred to.
 */
async function* afterFunctionResponse(
  ctx: InvocationContext,
  agent: LlmAgent,
  calls: FunctionCall[],
  outcome: FunctionCallsOutcome,
  credentialRequest: Event | undefined,
  step: StepEvents,
): AsyncGenerator<Event, void, void> {
  const responseEvent = outcome.event;
  if (outcome.suspensions) {
    // A call waits for the client (e.g. an agent tool's agent asked for a confirmation): every
    // request of the step is shown, then the turn ends.
    if (credentialRequest) yield step.note(credentialRequest);
    const confirmation = responseEvent && buildConfirmationRequestEvent(ctx, agent, calls, responseEvent);
    if (confirmation) yield step.note(confirmation);
    for (const { call, suspension } of outcome.suspensions)
      yield step.note(buildSuspendedCallEvent(ctx, agent, call, suspension));
    return;
  }
  if (!responseEvent) return;
  if (credentialRequest) {
    yield step.note(credentialRequest);
    return;
  }

  const confirmation = buildConfirmationRequestEvent(ctx, agent, calls, responseEvent);
  if (confirmation) {
    yield step.note(confirmation);
    return;
  }
  if (outcome.structuredOutput) {
    yield step.note(
      createEvent({
        invocationId: ctx.invocationId,
        author: agent.name,
        branch: ctx.branch,
        content: { role: "model", parts: [{ text: JSON.stringify(outcome.structuredOutput) }] },
      }),
    );
    return;
  }
  const transferTo = responseEvent.actions.transferToAgent;
  if (transferTo && !ctx.isEnded) {
    const target = agent.rootAgent.findAgent(transferTo);
    if (target) yield* noted(target.runAsync(ctx), step);
  }
}
