import { ConfigurationError } from "../errors/agentkit-error.js";
import type { RouteValue } from "../events/event-actions.js";
import type { BaseNode } from "./base-node.js";
import { isNodeLike, toNode, type NodeLike } from "./build-node.js";
import { isJoinNode } from "./join-node.js";

/** The entry of every graph: its successors get the workflow's input. Also spelled `"START"`. */
export const START = "START" as const;
/** The route taken when a node's route matches no other edge (or it set none and has routed edges). */
export const DEFAULT_ROUTE = "__DEFAULT__";
/** The route taken when the node failed (after its retries): the next node gets `{ error }`. */
export const ERROR_ROUTE = "__ERROR__";

/** Route value to the nodes it selects (`{ approve: publish, reject: [notify, archive] }`). */
export type RoutingMap = { readonly [route: string]: NodeLike | readonly NodeLike[] };
/** One element of a chain: a node, `"START"`, a group of nodes (fan-out / fan-in), or a routing map. */
export type ChainElement = NodeLike | typeof START | readonly NodeLike[] | RoutingMap;

export interface EdgeOptions {
  from: NodeLike | typeof START;
  to: NodeLike;
  /** Taken only when the `from` node chose one of these routes (`ctx.route`). */
  route?: RouteValue | RouteValue[];
  /** A loop bound: the edge is taken at most this many times per workflow run, then skipped. */
  maxTraversals?: number;
}

/** An explicit edge (for options the chain shorthand cannot express, such as `maxTraversals`). */
export class Edge {
  readonly from: NodeLike | typeof START;
  readonly to: NodeLike;
  readonly route?: RouteValue | RouteValue[];
  readonly maxTraversals?: number;

  constructor(options: EdgeOptions) {
    this.from = options.from;
    this.to = options.to;
    if (options.route !== undefined) this.route = options.route;
    if (options.maxTraversals !== undefined) this.maxTraversals = options.maxTraversals;
  }
}

/**
 * What `Workflow({ edges })` takes: explicit `Edge`s and chains such as `["START", a, b]`,
 * `[a, [b, c], join]` (fan-out, then fan-in) or `[classify, { urgent: page, normal: queue }]`.
 */
export type EdgeItem = Edge | readonly ChainElement[];

/** An edge of a built graph (node names; routes as strings). */
export interface GraphEdge {
  readonly index: number;
  readonly from: string;
  readonly to: string;
  /** Undefined: always taken. */
  readonly routes?: readonly string[];
  readonly maxTraversals?: number;
}

export interface GraphBuildOptions {
  /** Allow cycles of unconditional, unbounded edges (a `LoopAgent` with no `maxIterations`). */
  allowUnboundedCycles?: boolean;
  /** Allow a graph without nodes (a workflow agent without sub-agents). */
  allowEmpty?: boolean;
}

/** A validated workflow graph: its nodes by name and its edges. */
export class WorkflowGraph {
  readonly nodes = new Map<string, BaseNode>();
  readonly edges: GraphEdge[] = [];
  private readonly outgoingByNode = new Map<string, GraphEdge[]>();
  private readonly incomingByNode = new Map<string, GraphEdge[]>();
  private readonly predecessorsByNode = new Map<string, readonly string[]>();

  /** Builds and validates the graph; problems throw `ConfigurationError` naming the workflow. */
  static fromEdges(workflowName: string, items: readonly EdgeItem[], options: GraphBuildOptions = {}): WorkflowGraph {
    const graph = new WorkflowGraph();
    const built = new Map<unknown, BaseNode>();
    const fail = (message: string): never => {
      throw new ConfigurationError(`Workflow "${workflowName}": ${message}`);
    };
    const nodeOf = (value: unknown): string => {
      if (value === START) return START;
      let node = built.get(value);
      if (!node) {
        if (!isNodeLike(value))
          fail(`an edge holds ${describe(value)}, which is not a node, agent, tool or named function.`);
        node = toNode(value);
        const existing = graph.nodes.get(node.name);
        if (existing && existing !== node)
          fail(`two different nodes are named "${node.name}"; node names must be unique in a workflow.`);
        built.set(value, node);
        graph.nodes.set(node.name, node);
      }
      return node.name;
    };
    // Each edge's (from, to, routes) key, to refuse a duplicate in O(1) (a scan of the edges made
    // a graph of 20,000 edges take 40 s to build).
    const edgeKeys = new Set<string>();
    const add = (from: string, to: string, route: RouteValue | RouteValue[] | undefined, maxTraversals?: number) => {
      if (to === START) fail('"START" cannot be the target of an edge.');
      if (from === START && route !== undefined) fail('edges from "START" cannot have a route.');
      if (maxTraversals !== undefined && !(Number.isInteger(maxTraversals) && maxTraversals >= 1))
        fail(`the edge ${from} -> ${to} has maxTraversals ${String(maxTraversals)}; use a positive integer.`);
      const routes = route === undefined ? undefined : (Array.isArray(route) ? route : [route]).map(String);
      const key = JSON.stringify([from, to, routes ?? null]);
      if (edgeKeys.has(key))
        fail(`the edge ${from} -> ${to}${routes ? ` (route ${routes.join(", ")})` : ""} is declared twice.`);
      edgeKeys.add(key);
      const edge: GraphEdge = {
        index: graph.edges.length,
        from,
        to,
        ...(routes ? { routes } : {}),
        ...(maxTraversals ? { maxTraversals } : {}),
      };
      graph.edges.push(edge);
    };

    if (options.allowEmpty && Array.isArray(items) && items.length === 0) return graph;
    if (!Array.isArray(items) || items.length === 0)
      fail("edges must be a non-empty list (e.g. [['START', firstNode]]).");
    items.forEach((item, i) => {
      if (item instanceof Edge) {
        add(nodeOf(item.from), nodeOf(item.to), item.route, item.maxTraversals);
        return;
      }
      if (!Array.isArray(item) || item.length < 2)
        fail(`edges[${i}] must be an Edge or a chain of at least two elements (e.g. ['START', node]).`);
      let previous: string[] | undefined;
      (item as readonly ChainElement[]).forEach((element, j) => {
        if (isRoutingMap(element)) {
          if (!previous) fail(`edges[${i}] starts with a routing map; put the node that routes before it.`);
          const targets: string[] = [];
          const entries = Object.entries(element as RoutingMap);
          if (entries.length === 0) fail(`edges[${i}][${j}] is an empty routing map.`);
          for (const [route, to] of entries) {
            for (const target of Array.isArray(to) ? to : [to]) {
              const name = nodeOf(target);
              for (const from of previous!) add(from, name, route);
              targets.push(name);
            }
          }
          previous = [...new Set(targets)];
          return;
        }
        const group = Array.isArray(element) ? (element as unknown[]) : [element];
        if (group.length === 0) fail(`edges[${i}][${j}] is an empty group.`);
        const names = group.map((member) => {
          if (member === START && j !== 0) fail('"START" can only begin a chain.');
          return nodeOf(member);
        });
        if (previous) for (const from of previous) for (const to of names) add(from, to, undefined);
        previous = names;
      });
    });
    for (const edge of graph.edges) {
      graph.listOf(graph.outgoingByNode, edge.from).push(edge);
      graph.listOf(graph.incomingByNode, edge.to).push(edge);
    }
    graph.validate(fail, options);
    return graph;
  }

  /** The edges leaving a node (or `START`), in declaration order. */
  outgoing(name: string): readonly GraphEdge[] {
    return this.outgoingByNode.get(name) ?? [];
  }

  /** The edges entering a node, in declaration order. */
  incoming(name: string): readonly GraphEdge[] {
    return this.incomingByNode.get(name) ?? [];
  }

  /** The distinct nodes with an edge into `name` (worked out once per node: a join asks on every arrival). */
  predecessors(name: string): readonly string[] {
    let found = this.predecessorsByNode.get(name);
    if (!found) this.predecessorsByNode.set(name, (found = [...new Set(this.incoming(name).map((e) => e.from))]));
    return found;
  }

  private listOf(map: Map<string, GraphEdge[]>, key: string): GraphEdge[] {
    let list = map.get(key);
    if (!list) map.set(key, (list = []));
    return list;
  }

  private validate(fail: (message: string) => never, options: GraphBuildOptions): void {
    if (this.outgoing(START).length === 0) fail("no edge starts at \"START\" (e.g. ['START', firstNode]).");
    const reached = new Set<string>([START]);
    const stack = [START as string];
    while (stack.length > 0) {
      for (const edge of this.outgoing(stack.pop()!)) {
        if (!reached.has(edge.to)) {
          reached.add(edge.to);
          stack.push(edge.to);
        }
      }
    }
    for (const name of this.nodes.keys())
      if (!reached.has(name)) fail(`node "${name}" cannot be reached from "START".`);
    for (const [name, node] of this.nodes) {
      if (!isJoinNode(node)) continue;
      const predecessors = this.predecessors(name);
      const waitFor = node.waitFor;
      if (typeof waitFor === "number" && waitFor > predecessors.length)
        fail(`join "${name}" waits for ${waitFor} predecessors but has ${predecessors.length}.`);
      if (Array.isArray(waitFor))
        for (const wanted of waitFor)
          if (!predecessors.includes(wanted))
            fail(`join "${name}" waits for "${wanted}", which is not one of its predecessors.`);
    }
    if (!options.allowUnboundedCycles) {
      const cycle = this.unboundedCycle();
      if (cycle)
        fail(
          `the loop ${cycle.join(" -> ")} has no routed or bounded edge, so it would never end; give one of its edges a route or maxTraversals.`,
        );
    }
  }

  /**
   * A cycle made only of unconditional, unbounded edges, if any (as a path of names). A depth-first
   * walk on a stack of its own (each open node and the next of its edges to try): a recursive walk
   * ran out of call stack on a chain of a few thousand nodes.
   */
  private unboundedCycle(): string[] | undefined {
    const state = new Map<string, "open" | "done">();
    for (const root of [START as string, ...this.nodes.keys()]) {
      if (state.has(root)) continue;
      state.set(root, "open");
      const path: string[] = [root];
      const nextEdge: number[] = [0];
      while (path.length > 0) {
        const top = path.length - 1;
        const name = path[top]!;
        const edge = this.outgoing(name)[nextEdge[top]!];
        if (!edge) {
          path.pop();
          nextEdge.pop();
          state.set(name, "done");
          continue;
        }
        nextEdge[top]! += 1;
        if (edge.routes || edge.maxTraversals) continue;
        const seen = state.get(edge.to);
        if (seen === "open") return [...path.slice(path.indexOf(edge.to)), edge.to];
        if (!seen) {
          state.set(edge.to, "open");
          path.push(edge.to);
          nextEdge.push(0);
        }
      }
    }
    return undefined;
  }
}

function isRoutingMap(value: unknown): value is RoutingMap {
  if (typeof value !== "object" || value === null || Array.isArray(value) || isNodeLike(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === "object") return `an object (${(value as object).constructor?.name ?? "Object"})`;
  return JSON.stringify(value) ?? typeof value;
}
