import { BaseAgent, type BaseAgentOptions } from "../agents/base-agent.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { Event } from "../events/event.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { AgentNode } from "./agent-node.js";
import type { BaseNode } from "./base-node.js";
import { FunctionNode } from "./function-node.js";
import { START, WorkflowGraph, type EdgeItem } from "./graph.js";
import type { NodeContext } from "./node-context.js";
import type { SchemaLike } from "./schema-like.js";
import { runWorkflow, type RunnableWorkflow, type WorkflowBehaviour } from "./workflow-run.js";

/** A workflow driven by code instead of edges: it runs nodes with `ctx.runNode` and returns the output. */
export type DynamicEntry = (ctx: NodeContext, input: unknown) => unknown;

export interface WorkflowOptions extends Omit<BaseAgentOptions, "subAgents"> {
  /** The graph: chains such as `["START", a, b]`, routing maps, groups, `Edge`s. Or give `dynamicEntry`. */
  edges?: readonly EdgeItem[];
  /** Code that runs nodes with `ctx.runNode(...)` and returns the workflow's output. Or give `edges`. */
  dynamicEntry?: DynamicEntry;
  /** Nodes running at once at most (default: no limit). */
  maxConcurrency?: number;
  /** Validates the workflow's input (a user message's text is parsed as JSON first). */
  inputSchema?: SchemaLike;
  /** Validates the workflow's output (the output of its last node). */
  outputSchema?: SchemaLike;
}

/** How a workflow agent (`SequentialAgent`, ...) is built on a workflow (internal). */
export interface WorkflowShape {
  graph: WorkflowGraph;
  subAgents: BaseAgent[];
  behaviour: WorkflowBehaviour;
  supportsLive: boolean;
}

const WORKFLOW_BEHAVIOUR: WorkflowBehaviour = {
  emitNodeOutputs: true,
  pauseAlways: true,
  stopOnEscalate: false,
  alwaysBranchFanOut: false,
};

/**
 * A graph of nodes (functions, tools, agents, other workflows) and edges, run as an agent:
 * `new Workflow({ name, edges: [["START", fetch, summarize]] })`. A node's output is the next
 * node's input; routes (`ctx.route`), fan-out, joins, bounded loops, retries, timeouts and
 * `maxConcurrency` shape the run. Everything a node does is an event of the session (author: the
 * node). It can be a `Runner`'s agent, an `App`'s root, a node of another workflow, a sub-agent,
 * or a tool (`NodeTool`). In a resumable app a paused or interrupted run continues where it stopped.
 * See docs/workflows.md.
 */
export class Workflow extends BaseAgent implements RunnableWorkflow {
  readonly graph: WorkflowGraph;
  readonly maxConcurrency?: number;
  readonly inputSchema?: SchemaLike;
  readonly outputSchema?: SchemaLike;
  /** @internal */
  readonly behaviour: WorkflowBehaviour;
  /** @internal The node of a `dynamicEntry` workflow. */
  readonly entryNode?: BaseNode;
  private readonly supportsLive: boolean;

  constructor(options: WorkflowOptions, shape?: WorkflowShape) {
    const built = shape ?? buildShape(options);
    super({ ...options, subAgents: built.subAgents });
    if (
      options.maxConcurrency !== undefined &&
      !(Number.isInteger(options.maxConcurrency) && options.maxConcurrency >= 1)
    ) {
      throw new ConfigurationError(`Workflow "${options.name}": maxConcurrency must be a positive integer.`);
    }
    this.graph = built.graph;
    this.behaviour = built.behaviour;
    this.supportsLive = built.supportsLive;
    if (options.maxConcurrency !== undefined) this.maxConcurrency = options.maxConcurrency;
    if (options.inputSchema) this.inputSchema = options.inputSchema;
    if (options.outputSchema) this.outputSchema = options.outputSchema;
    if (!shape && options.dynamicEntry) this.entryNode = built.graph.nodes.values().next().value;
  }

  /** The nodes of the graph, by name. */
  get nodes(): ReadonlyMap<string, BaseNode> {
    return this.graph.nodes;
  }

  protected override runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    return runWorkflow(this, ctx, false);
  }

  protected override runLiveImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    if (!this.supportsLive) return super.runLiveImpl(ctx);
    return runWorkflow(this, ctx, true);
  }
}

function buildShape(options: WorkflowOptions): WorkflowShape {
  const name = options?.name;
  if (options?.edges !== undefined && options.dynamicEntry !== undefined)
    throw new ConfigurationError(`Workflow "${name}": give either edges or dynamicEntry, not both.`);
  let graph: WorkflowGraph;
  if (options?.dynamicEntry !== undefined) {
    if (typeof options.dynamicEntry !== "function")
      throw new ConfigurationError(`Workflow "${name}": dynamicEntry must be a function (ctx, input) => output.`);
    graph = WorkflowGraph.fromEdges(name, [
      [START, new FunctionNode(name, options.dynamicEntry, { rerunOnResume: true })],
    ]);
  } else {
    if (options?.edges === undefined)
      throw new ConfigurationError(`Workflow "${name}" needs edges (or a dynamicEntry).`);
    graph = WorkflowGraph.fromEdges(name, options.edges);
  }
  const subAgents = [...graph.nodes.values()].flatMap((node) => (node instanceof AgentNode ? [node.agent] : []));
  return { graph, subAgents, behaviour: WORKFLOW_BEHAVIOUR, supportsLive: false };
}

/** True for a `Workflow` (the workflow agents `SequentialAgent`, `ParallelAgent` and `LoopAgent` are ones). */
export function isWorkflow(agent: unknown): agent is Workflow {
  return agent instanceof Workflow;
}
