import { setImmediate as nextTurn } from "node:timers/promises";
import type { Content } from "../content/content.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { RunAbortedError } from "../errors/run-errors.js";
import { AbortScope } from "../concurrency/abort-scope.js";
import { Fifo } from "../concurrency/fifo.js";
import { createEvent, type Event } from "../events/event.js";
import { isLlmAgent } from "../flows/llm-agent-kind.js";
import { AgentNode } from "./agent-node.js";
import type { BaseNode } from "./base-node.js";
import { EventMerger } from "./event-merger.js";
import type { WorkflowGraph } from "./graph.js";
import { answersFor, runNodeWithPolicies, type NodeOutcome } from "./node-runner.js";
import { parseWithSchema, type SchemaLike } from "./schema-like.js";
import { WorkflowScheduler, type NodeRunRef } from "./workflow-scheduler.js";
import { NodeSchemaValidationError, WorkflowResumeError } from "./workflow-errors.js";
import { RunRecords } from "./workflow-records.js";

/** How a workflow (or a workflow agent built on one) behaves (internal). */
export interface WorkflowBehaviour {
  /** Emit an output event per completed node (workflows; the workflow agents keep their old events). */
  emitNodeOutputs: boolean;
  /** Stop a path at a node that waits for the client even when the app is not resumable. */
  pauseAlways: boolean;
  /** End the workflow once a node's event escalates (`LoopAgent`). */
  stopOnEscalate: boolean;
  /** Put each successor of START on its own branch, even a single one (`ParallelAgent`). */
  alwaysBranchFanOut: boolean;
}

/** What the run loop needs of a workflow (the `Workflow` class; a type to keep imports acyclic). */
export interface RunnableWorkflow {
  readonly name: string;
  readonly graph: WorkflowGraph;
  readonly maxConcurrency?: number;
  readonly inputSchema?: SchemaLike;
  readonly outputSchema?: SchemaLike;
  readonly behaviour: WorkflowBehaviour;
  /** Set for a `dynamicEntry` workflow: its single node, whose `ctx.runNode` children sit right under the workflow. */
  readonly entryNode?: BaseNode;
}

interface Waiting {
  ref: NodeRunRef;
  interrupts: string[];
}

interface Start {
  ref: NodeRunRef;
  resumeInputs: Record<string, unknown>;
  resume: boolean;
}

const FATAL = (error: unknown) =>
  error instanceof RunAbortedError || (error instanceof Error && error.name === "AbortError");

/**
 * One run of a workflow: schedules its nodes (up to `maxConcurrency` at once), yields their events
 * as they come (a node continues only after its event was stored), applies routes, joins and
 * loop bounds, routes failures down `__ERROR__` edges, and stops a path at a node that waits for
 * the client. In a resumable app it writes records (`nodeInfo.status`, `actions.agentState`) and,
 * when told to resume, rebuilds its state from them: completed nodes are not run again, an
 * answered node continues, nodes cut off by a crash run again.
 */
export async function* runWorkflow(
  workflow: RunnableWorkflow,
  ctx: InvocationContext,
  live: boolean,
): AsyncGenerator<Event, void, void> {
  const scope = ctx.nodeScope;
  const path = scope?.path ?? workflow.name;
  const behaviour = workflow.behaviour;
  const writeRecords = ctx.isResumable;
  const pause = behaviour.pauseAlways || ctx.isResumable;

  let records = scope?.resume && writeRecords ? RunRecords.latest(ctx.session, path) : undefined;
  const resuming = records !== undefined;
  let input: unknown;
  let inputInHistory: boolean;
  if (records) {
    const start = records.startState;
    input = start.input;
    inputInHistory = start.inHistory === true;
  } else {
    input = scope ? scope.input : ctx.userContent;
    inputInHistory = scope ? scope.inputInHistory === true : input !== undefined;
    if (workflow.inputSchema) input = validate(workflow.name, workflow.inputSchema, "input", contentValue(input));
    records = RunRecords.fresh(ctx.session, path);
    if (writeRecords)
      yield createEvent({
        invocationId: ctx.invocationId,
        author: workflow.name,
        branch: ctx.branch,
        nodeInfo: { path, status: "started" },
        actions: { agentState: { input, inHistory: inputInHistory } },
      });
  }

  const graph = workflow.graph;
  const scheduler = new WorkflowScheduler(graph, {
    workflowName: workflow.name,
    baseBranch: ctx.branch,
    alwaysBranchFanOut: behaviour.alwaysBranchFanOut,
  });
  const nodeStates = new Map<string, Record<string, unknown>>();
  const waiting = new Map<string, Waiting>();
  const starts = new Fifo<Start>();
  scheduler.start(input, inputInHistory);
  if (resuming && workflow.entryNode) {
    // A dynamic workflow runs its entry again; its `ctx.runNode` calls replay from their records.
    const trigger = scheduler.takeNext();
    if (trigger) starts.push({ ref: scheduler.activate(trigger), resumeInputs: {}, resume: true });
  } else if (resuming) {
    replay(records, scheduler, waiting, nodeStates, starts);
  }

  const abortScope = AbortScope.under(ctx.signal);
  const { signal } = abortScope;
  const merger = new EventMerger<string, Event, NodeOutcome>();
  const running = new Map<string, NodeRunRef>();
  const pathOf = (ref: NodeRunRef) => (workflow.entryNode ? path : `${path}/${ref.node}@${ref.run}`);
  let stopped = false;
  let output: unknown;

  const start = ({ ref, resumeInputs, resume }: Start) => {
    const node = graph.nodes.get(ref.node)!;
    const key = `${ref.node}@${ref.run}`;
    let nodeState = nodeStates.get(ref.node);
    if (!nodeState) nodeStates.set(ref.node, (nodeState = {}));
    running.set(key, ref);
    merger.add(
      key,
      runNodeWithPolicies({
        node,
        path: pathOf(ref),
        run: ref.run,
        input: ref.input,
        inputInHistory: ref.inputInHistory,
        invocation: ctx.withAgent(ctx.agent, { branch: ref.branch, signal, nodeScope: undefined }),
        resume,
        resumeInputs,
        nodeState,
        live,
        records: records!,
        writeRecords,
        emitOutputs: behaviour.emitNodeOutputs,
      }),
    );
  };

  try {
    for (;;) {
      while (
        !stopped &&
        !ctx.isEnded &&
        (workflow.maxConcurrency === undefined || running.size < workflow.maxConcurrency)
      ) {
        const next = starts.shift() ?? nextTrigger(scheduler, records!, pathOf, resuming);
        if (!next) break;
        start(next);
      }
      if (running.size === 0) {
        if (stopped || ctx.isEnded || waiting.size > 0) break;
        if (scheduler.hasPending || starts.length > 0) continue;
        if (scheduler.flushJoins()) continue;
        break;
      }
      const item = await merger.next();
      if (item.kind === "value") {
        yield item.value;
        continue;
      }
      const ref = running.get(item.key)!;
      running.delete(item.key);
      const node = graph.nodes.get(ref.node)!;
      if (item.kind === "error") {
        const error = item.error;
        if (!FATAL(error) && !signal.aborted && scheduler.hasErrorRoute(ref.node)) {
          const payload = errorPayload(error);
          yield nodeEvent(ctx, ref, node, pathOf(ref), {
            output: payload,
            errorCode: payload.code,
            errorMessage: payload.message,
            nodeInfo: { path: pathOf(ref), status: "failed" },
          });
          scheduler.complete(ref, { error: payload });
          continue;
        }
        if (behaviour.emitNodeOutputs && !FATAL(error) && !signal.aborted) {
          const payload = errorPayload(error);
          yield nodeEvent(ctx, ref, node, pathOf(ref), { errorCode: payload.code, errorMessage: payload.message });
        }
        throw error;
      }
      const outcome = item.result;
      const nodeState = nodeStates.get(ref.node)!;
      if (outcome.status === "waiting" && pause) {
        waiting.set(item.key, { ref, interrupts: outcome.interrupts });
        if (writeRecords)
          yield nodeEvent(ctx, ref, node, pathOf(ref), {
            nodeInfo: { path: pathOf(ref), status: "waiting" },
            actions: { ...outcome.actions, agentState: { interrupts: outcome.interrupts, ...stateOf(nodeState) } },
          });
        continue;
      }
      const inHistory = node instanceof AgentNode && isLlmAgent(node.agent) && typeof outcome.output === "string";
      if ((behaviour.emitNodeOutputs || writeRecords) && !workflow.entryNode) {
        yield nodeEvent(ctx, ref, node, pathOf(ref), {
          ...(behaviour.emitNodeOutputs && outcome.output !== undefined ? { output: outcome.output } : {}),
          nodeInfo: { path: pathOf(ref), status: "completed" },
          actions: {
            ...outcome.actions,
            ...(outcome.route !== undefined ? { route: outcome.route } : {}),
            ...(writeRecords ? { agentState: { ...stateOf(nodeState), ...(inHistory ? { inHistory } : {}) } } : {}),
          },
        });
      }
      const taken = scheduler.complete(ref, {
        output: outcome.output,
        route: outcome.route,
        outputInHistory: inHistory,
      });
      if (taken === 0) output = outcome.output;
      if (outcome.escalated && behaviour.stopOnEscalate) stopped = true;
      // A loop: let timers and abort listeners run even when its nodes never wait.
      if (ref.run !== "1") await nextTurn();
    }
  } finally {
    abortScope.end();
    await merger.close();
  }
  if (waiting.size > 0 && !ctx.isEnded) return; // paused: the answer resumes it
  if (workflow.outputSchema && output !== undefined)
    output = validate(workflow.name, workflow.outputSchema, "output", output);
  if (writeRecords && !scope?.recordedByParent)
    yield createEvent({
      invocationId: ctx.invocationId,
      author: workflow.name,
      branch: ctx.branch,
      ...(output !== undefined && behaviour.emitNodeOutputs ? { output } : {}),
      nodeInfo: { path, status: "completed" },
      actions: { endOfAgent: true },
    });
  scope?.setOutput?.(output);
}

/** The next pending trigger as a start; on resume, a run that had begun before the stop continues. */
function nextTrigger(
  scheduler: WorkflowScheduler,
  records: RunRecords,
  pathOf: (ref: NodeRunRef) => string,
  resuming: boolean,
): Start | undefined {
  const trigger = scheduler.takeNext();
  if (!trigger) return undefined;
  const ref = scheduler.activate(trigger);
  return { ref, resumeInputs: {}, resume: resuming && records.eventsOf(pathOf(ref)).length > 0 };
}

/**
 * Rebuilds the run from its records in the order they were written: completions are applied
 * (their successors triggered) without running anything, waiting nodes wait again unless the
 * client answered them (then they continue), runs cut off without a record run again.
 */
function replay(
  records: RunRecords,
  scheduler: WorkflowScheduler,
  waiting: Map<string, Waiting>,
  nodeStates: Map<string, Record<string, unknown>>,
  starts: Fifo<Start>,
): void {
  const begun = new Map<string, NodeRunRef>();
  for (const record of records.childRecords()) {
    const key = `${record.name}@${record.run}`;
    if (record.state.nodeState) nodeStates.set(record.name, { ...record.state.nodeState });
    let ref = waiting.get(key)?.ref ?? begun.get(key);
    waiting.delete(key);
    begun.delete(key);
    while (!ref) {
      let trigger = scheduler.takeFor(record.name);
      if (!trigger && scheduler.forceJoin(record.name)) trigger = scheduler.takeFor(record.name);
      if (!trigger)
        throw new WorkflowResumeError(
          `Cannot resume workflow run "${records.path}": its records show node "${record.name}" run ${record.run}, which the workflow's graph does not lead to now (did the workflow change since the run paused?). Start a new run.`,
        );
      const activated = scheduler.activate(trigger);
      const activatedKey = `${activated.node}@${activated.run}`;
      if (activatedKey === key) ref = activated;
      else begun.set(activatedKey, activated);
    }
    if (record.status === "waiting") waiting.set(key, { ref, interrupts: record.state.interrupts ?? [] });
    else if (record.status === "completed")
      scheduler.complete(ref, {
        output: record.event.output,
        route: record.event.actions.route,
        outputInHistory: record.state.inHistory,
      });
    else if (record.status === "failed") scheduler.complete(ref, { error: record.event.output });
  }
  for (const ref of begun.values()) starts.push({ ref, resumeInputs: {}, resume: true });
  for (const [key, entry] of waiting) {
    const answers = answersFor(records, entry.interrupts);
    if (Object.keys(answers).length === 0) continue;
    waiting.delete(key);
    starts.push({ ref: entry.ref, resumeInputs: answers, resume: true });
  }
}

function nodeEvent(
  ctx: InvocationContext,
  ref: NodeRunRef,
  node: BaseNode,
  path: string,
  init: Partial<Event> & { actions?: Partial<Event["actions"]> },
): Event {
  return createEvent({
    ...init,
    invocationId: ctx.invocationId,
    author: node.name,
    branch: ref.branch,
    nodeInfo: init.nodeInfo ?? { path },
  });
}

function stateOf(nodeState: Record<string, unknown>): { nodeState?: Record<string, unknown> } {
  return Object.keys(nodeState).length > 0 ? { nodeState: structuredClone(nodeState) } : {};
}

/** What the next node gets on an `__ERROR__` edge (and what the failure event says). */
function errorPayload(error: unknown): { name: string; code: string; message: string } {
  if (error instanceof AgentKitError) return { name: error.name, code: error.code, message: error.message };
  if (error instanceof Error) return { name: error.name, code: "NODE_FAILED", message: error.message };
  return { name: "Error", code: "NODE_FAILED", message: String(error) };
}

/** A user message's text (parsed as JSON when it is), the value otherwise: what an input schema checks. */
function contentValue(input: unknown): unknown {
  if (typeof input !== "object" || input === null || !Array.isArray((input as Content).parts)) return input;
  const text = ((input as Content).parts ?? []).map((p) => p.text ?? "").join("");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function validate(name: string, schema: SchemaLike, direction: "input" | "output", value: unknown): unknown {
  const parsed = parseWithSchema(schema, value);
  if (!parsed.success) throw new NodeSchemaValidationError(name, direction, parsed.detail);
  return parsed.data;
}
