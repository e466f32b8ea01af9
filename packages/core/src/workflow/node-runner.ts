import type { InvocationContext } from "../context/invocation-context.js";
import { AbortScope, endedReason } from "../concurrency/abort-scope.js";
import { retryStream } from "../concurrency/retry.js";
import { AgentKitError, ConfigurationError } from "../errors/agentkit-error.js";
import { BudgetExceededError } from "../errors/budget-errors.js";
import { LlmCallsLimitExceededError, RunAbortedError } from "../errors/run-errors.js";
import { createEventActions, type EventActions, type RouteValue } from "../events/event-actions.js";
import { getFunctionResponses, type Event } from "../events/event.js";
import { REQUEST_INPUT_FUNCTION_CALL_NAME } from "../flows/confirmation-names.js";
import type { BaseNode, ErrorMatcher, NodeRetryConfig, NodeYield } from "./base-node.js";
import { toNode } from "./build-node.js";
import { isEventLike } from "./function-node.js";
import { NodeChannel } from "./node-channel.js";
import { NodeContext, type NodeHost } from "./node-context.js";
import { isRequestInput, type RequestInput } from "./request-input.js";
import { parseWithSchema, schemaToJson } from "./schema-like.js";
import { unwrap } from "./tool-node.js";
import { NodePausedSignal, NodeSchemaValidationError, NodeTimeoutError } from "./workflow-errors.js";
import type { RunRecords } from "./workflow-records.js";

/** How one node run ended (a failure is thrown instead). */
export interface NodeOutcome {
  /** `waiting`: it paused on `interrupts` (calls the client has to answer). */
  status: "completed" | "waiting";
  output?: unknown;
  route?: RouteValue | RouteValue[];
  interrupts: string[];
  /** An event of the run asked its parents to stop (`actions.escalate`). */
  escalated: boolean;
  /** State changes (and artifact versions) not stored with an earlier event of the run. */
  actions: EventActions;
}

/** Everything one node run needs (internal). */
export interface NodeRunParams {
  node: BaseNode;
  path: string;
  run: string;
  input: unknown;
  inputInHistory: boolean;
  /** The node's invocation context: the workflow agent, the node's branch, the workflow's signal. */
  invocation: InvocationContext;
  resume: boolean;
  /** The client's answers to the node's requests, by interrupt id (on resume). */
  resumeInputs: Record<string, unknown>;
  nodeState: Record<string, unknown>;
  live: boolean;
  records: RunRecords;
  /** Write completion / waiting records for `ctx.runNode` children (resumable apps). */
  writeRecords: boolean;
  /** Emit output events for `ctx.runNode` children (workflows; not the workflow agents). */
  emitOutputs: boolean;
}

const NO_RETRY = { maxAttempts: 1 } as const;

/**
 * Runs one node run with its policies: plugin before/after node callbacks, input and output
 * schemas, the timeout (the node's signal aborts and the run stops even if the node ignores it),
 * retries through the code base's retry loop, `RequestInput` pauses, and the calls left waiting
 * for the client. Yields the run's events (the node's own, its emits, its children's); returns the
 * outcome, or throws the failure that remained after the retries.
 */
export async function* runNodeWithPolicies(params: NodeRunParams): AsyncGenerator<Event, NodeOutcome, void> {
  const { node } = params;
  // A paused node that does not run again: the client's answer is its output.
  if (params.resume && !node.rerunOnResume && Object.keys(params.resumeInputs).length > 0) {
    const answers = Object.values(params.resumeInputs);
    return {
      status: "completed",
      output: answers.length === 1 ? answers[0] : params.resumeInputs,
      interrupts: [],
      escalated: false,
      actions: createEventActions(),
    };
  }
  const retry = node.retryConfig;
  let outcome: NodeOutcome | undefined;
  const attempts = retryStream<Event | NodeOutcome>((attempt) => runAttempt(params, attempt), {
    policy: retry ? policyOf(retry) : NO_RETRY,
    signal: params.invocation.signal,
    retryAfterOutput: true,
    decide: (error) => ({ retry: retry !== undefined && isRetryable(error, retry) }),
  });
  for await (const item of attempts) {
    if (isEventLike(item)) yield item;
    else outcome = item;
  }
  return outcome!;
}

async function* runAttempt(params: NodeRunParams, attempt: number): AsyncGenerator<Event | NodeOutcome, void, void> {
  const { node } = params;
  const scope = AbortScope.under(params.invocation.signal);
  const { signal } = scope;
  const invocation = params.invocation.withAgent(params.invocation.agent, { signal, nodeScope: undefined });
  const channel = new NodeChannel();
  const children = new Set<Promise<unknown>>();
  const host: NodeHost = {
    push: (event) => channel.push(event),
    runChild: (parent, nodeLike, input, runId) => {
      const child = runChild(params, parent, nodeLike, input, runId, (event) => channel.push(event));
      children.add(child);
      const forget = () => {
        children.delete(child);
        channel.notify();
      };
      child.then(forget, forget);
      return child;
    },
    eventsOf: (path) => params.records.eventsOf(path),
  };
  const ctx = new NodeContext({
    invocation,
    node,
    path: params.path,
    run: params.run,
    attempt,
    input: params.input,
    inputInHistory: params.inputInHistory,
    resume: params.resume,
    resumeInputs: params.resumeInputs,
    nodeState: params.nodeState,
    live: params.live,
    host,
  });
  // An abort wakes the loop below, which then throws its reason. (Racing the channel against a
  // promise pending for the whole attempt would add a reaction to it per wait: per event.)
  let stopped: Error | undefined;
  const onAbort = () => {
    stopped = signal.reason instanceof Error ? signal.reason : new RunAbortedError({ cause: signal.reason });
    channel.notify();
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  if (node.timeoutMs !== undefined)
    scope.abortAfter(node.timeoutMs, () => new NodeTimeoutError(node.name, node.timeoutMs!));

  const pending = new Set<string>();
  let escalated = false;
  const observe = (event: Event) => {
    for (const id of event.longRunningToolIds ?? []) pending.add(id);
    for (const response of getFunctionResponses(event)) if (response.id) pending.delete(response.id);
    if (event.actions.escalate) escalated = true;
  };
  const requestEvent = (request: RequestInput): Event => {
    if (!params.invocation.isResumable)
      throw new ConfigurationError(
        `Node "${node.name}" requested input, which needs a resumable app: App({ resumability: { isResumable: true } }) (or Runner resumability).`,
      );
    const schema = request.responseSchema
      ? schemaToJson(request.responseSchema, `The responseSchema of node "${node.name}"`)
      : undefined;
    return ctx.createNodeEvent({
      content: {
        role: "model",
        parts: [
          {
            functionCall: {
              id: request.interruptId,
              name: REQUEST_INPUT_FUNCTION_CALL_NAME,
              args: {
                interruptId: request.interruptId,
                message: request.message ?? null,
                payload: request.payload ?? null,
                response_schema: schema ?? null,
              },
            },
          },
        ],
      },
      longRunningToolIds: [request.interruptId],
      actions: {
        stateDelta: ctx.takeStateDelta(),
        requestedInputs: {
          [request.interruptId]: {
            ...(request.message !== undefined ? { message: request.message } : {}),
            ...(request.payload !== undefined ? { payload: request.payload } : {}),
            ...(schema ? { responseSchema: schema } : {}),
          },
        },
      },
    });
  };

  let result: { done: true; value: unknown } | { done: false; error: unknown } | undefined;
  const body = (async () => {
    const skipped = await ctx.invocation.pluginManager.run("beforeNodeCallback", {
      node,
      context: ctx,
      input: params.input,
    });
    if (skipped !== undefined) return skipped;
    let input = params.input;
    if (node.inputSchema) {
      const parsed = parseWithSchema(node.inputSchema, input);
      if (!parsed.success) throw new NodeSchemaValidationError(node.name, "input", parsed.detail);
      input = parsed.data;
    }
    const generator = node.runNode(ctx, input as never);
    try {
      for (;;) {
        const step = await generator.next();
        if (step.done) return step.value;
        await channel.push(toEvent(step.value));
      }
    } finally {
      await generator.return(undefined).catch(() => {});
    }
  })().then(
    (value) => {
      result = { done: true, value };
      channel.notify();
    },
    (error: unknown) => {
      result = { done: false, error };
      channel.notify();
    },
  );
  function toEvent(item: NodeYield): Event {
    return isRequestInput(item) ? requestEvent(item) : item;
  }

  try {
    for (;;) {
      const item = channel.take();
      if (item) {
        observe(item.event);
        yield item.event;
        item.taken();
        continue;
      }
      if (result && children.size === 0) break;
      if (stopped) throw stopped;
      await channel.waitForActivity();
      if (stopped) throw stopped;
    }
    await body;
    if (!result!.done) {
      const error = result!.error;
      if (!(error instanceof NodePausedSignal)) throw error;
      for (const id of error.interrupts) pending.add(id);
    } else {
      let value = result!.value;
      if (isRequestInput(value)) {
        const event = requestEvent(value);
        observe(event);
        yield event;
        value = undefined;
      }
      if (node.outputSchema && value !== undefined && pending.size === 0) {
        const parsed = parseWithSchema(node.outputSchema, value);
        if (!parsed.success) throw new NodeSchemaValidationError(node.name, "output", parsed.detail);
        value = parsed.data;
      }
      if (pending.size === 0) {
        const replaced = await ctx.invocation.pluginManager.run("afterNodeCallback", {
          node,
          context: ctx,
          output: value,
        });
        if (replaced !== undefined) value = replaced;
      }
      result = { done: true, value };
    }
    const actions = ctx.actions;
    const remaining = createEventActions({
      ...actions,
      stateDelta: ctx.takeStateDelta(),
      requestedToolConfirmations: {},
    });
    yield {
      status: pending.size > 0 ? "waiting" : "completed",
      output: result!.done ? result!.value : undefined,
      route: ctx.route,
      interrupts: [...pending],
      escalated,
      actions: createEventActions(remaining),
    } satisfies NodeOutcome;
  } finally {
    // The race against an abort is over: ending the scope need not reject it.
    signal.removeEventListener("abort", onAbort);
    const ended = endedReason();
    scope.end(ended);
    channel.close(ended);
  }
}

/** `ctx.runNode`: a child run under the calling node's path, replayed from its records when it ran before. */
async function runChild(
  params: NodeRunParams,
  parent: NodeContext,
  nodeLike: unknown,
  input: unknown,
  runId: string,
  push: (event: Event) => Promise<void>,
): Promise<unknown> {
  const node = toNode(nodeLike);
  const path = `${parent.nodePath}/${node.name}@${runId}`;
  const record = params.records.latestRecord(path);
  let resumeInputs: Record<string, unknown> = {};
  if (record?.status === "completed") return record.event.output;
  if (record?.status === "waiting") {
    resumeInputs = answersFor(params.records, record.state.interrupts ?? []);
    if (Object.keys(resumeInputs).length === 0) throw new NodePausedSignal(record.state.interrupts ?? []);
  }
  const run = runNodeWithPolicies({
    ...params,
    node,
    path,
    run: runId,
    input,
    inputInHistory: false,
    invocation: parent.invocation,
    resume: record !== undefined || params.records.eventsOf(path).length > 0,
    resumeInputs,
    nodeState: {},
  });
  let step = await run.next();
  while (!step.done) {
    await push(step.value);
    step = await run.next();
  }
  const outcome = step.value;
  if (outcome.status === "waiting") {
    if (params.writeRecords)
      await push(
        parent.createNodeEvent({
          author: node.name,
          nodeInfo: { path, status: "waiting" },
          actions: { ...outcome.actions, agentState: { interrupts: outcome.interrupts } },
        }),
      );
    throw new NodePausedSignal(outcome.interrupts);
  }
  if (params.writeRecords || params.emitOutputs)
    await push(
      parent.createNodeEvent({
        author: node.name,
        output: outcome.output,
        nodeInfo: { path, status: "completed" },
        actions: { ...outcome.actions, ...(outcome.route !== undefined ? { route: outcome.route } : {}) },
      }),
    );
  return outcome.output;
}

/** The client's answers to these calls (a `{ result }` envelope unwrapped), by id. */
export function answersFor(records: RunRecords, interrupts: readonly string[]): Record<string, unknown> {
  const answers = records.answers();
  const out: Record<string, unknown> = {};
  for (const id of interrupts) {
    const answer = answers.get(id);
    if (answer !== undefined) out[id] = unwrap(answer);
  }
  return out;
}

function policyOf(config: NodeRetryConfig) {
  const { retryOn: _retryOn, ...policy } = config;
  return policy;
}

/** Whether a node failure is retried under its config. */
function isRetryable(error: unknown, config: NodeRetryConfig): boolean {
  if (
    error instanceof RunAbortedError ||
    error instanceof LlmCallsLimitExceededError ||
    error instanceof BudgetExceededError ||
    error instanceof ConfigurationError ||
    error instanceof NodePausedSignal ||
    (error instanceof NodeSchemaValidationError && error.direction === "input")
  )
    return false;
  const rule = config.retryOn;
  if (rule === undefined) return true;
  if (typeof rule === "function") return rule(error);
  return rule.some((matcher) => matches(error, matcher));
}

function matches(error: unknown, matcher: ErrorMatcher): boolean {
  if (typeof matcher === "function") return error instanceof matcher;
  if (!(error instanceof Error)) return false;
  return error.name === matcher || (error instanceof AgentKitError && error.code === matcher);
}
