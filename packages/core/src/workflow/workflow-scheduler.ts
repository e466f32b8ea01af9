import type { RouteValue } from "../events/event-actions.js";
import { DEFAULT_ROUTE, ERROR_ROUTE, START, type GraphEdge, type WorkflowGraph } from "./graph.js";
import { isJoinNode, type JoinNode } from "./join-node.js";
import { Fifo } from "../concurrency/fifo.js";

/** A node waiting to run: its input and branch. */
export interface Trigger {
  node: string;
  input: unknown;
  branch: string | undefined;
  /** The input is already in the history an agent on this branch reads. */
  inputInHistory: boolean;
}

/** One activation of a node: `name@run`. */
export interface NodeRunRef extends Trigger {
  run: string;
}

/** How a node run ended, as far as the graph is concerned. */
export interface Completion {
  output?: unknown;
  route?: RouteValue | RouteValue[];
  /** Set when the node failed and its error goes down its `__ERROR__` edges. */
  error?: unknown;
  /** The output is an agent's answer, in the history of the node's branch. */
  outputInHistory?: boolean;
}

interface JoinRound {
  delivered: Map<string, unknown>;
  fired: boolean;
}

export interface SchedulerOptions {
  workflowName: string;
  /** The branch of the workflow itself. */
  baseBranch: string | undefined;
  /** Put every successor of START on its own branch, even a single one (`ParallelAgent`). */
  alwaysBranchFanOut?: boolean;
}

/**
 * The graph's bookkeeping, without running anything: which nodes are triggered (with what input
 * and on which branch), how often each ran and each edge was taken, and what joins collected. A
 * live run and a resumed run feed it the same completions in the same order, so a resumed run
 * reaches exactly the state the paused or interrupted one had.
 */
export class WorkflowScheduler {
  private readonly pendingTriggers = new Fifo<Trigger>();
  private readonly runCounts = new Map<string, number>();
  private readonly traversals: number[];
  private readonly joins = new Map<string, JoinRound>();

  constructor(
    private readonly graph: WorkflowGraph,
    private readonly options: SchedulerOptions,
  ) {
    this.traversals = graph.edges.map(() => 0);
  }

  /** Triggers the successors of START with the workflow's input. */
  start(input: unknown, inputInHistory: boolean): void {
    this.fire(START, this.options.baseBranch, [...this.graph.outgoing(START)], input, inputInHistory, true);
  }

  get hasPending(): boolean {
    return this.pendingTriggers.length > 0;
  }

  /** The next trigger to run (first in, first out). */
  takeNext(): Trigger | undefined {
    return this.pendingTriggers.shift();
  }

  /** The first pending trigger of a node (a resumed run matching a record). */
  takeFor(node: string): Trigger | undefined {
    return this.pendingTriggers.takeFirst((t) => t.node === node);
  }

  /** Starts a node run: numbers it (`1`, `2`, ... per node). */
  activate(trigger: Trigger): NodeRunRef {
    const run = (this.runCounts.get(trigger.node) ?? 0) + 1;
    this.runCounts.set(trigger.node, run);
    return { ...trigger, run: String(run) };
  }

  /** True when the node failed and has an `__ERROR__` edge to take. */
  hasErrorRoute(node: string): boolean {
    return this.graph.outgoing(node).some((e) => e.routes?.includes(ERROR_ROUTE) && this.available(e));
  }

  /** Applies a completed node run: takes the matching edges and triggers (or feeds) their targets. Returns how many edges were taken. */
  complete(run: NodeRunRef, completion: Completion): number {
    const outgoing = this.graph.outgoing(run.node);
    let taken: GraphEdge[];
    let input: unknown;
    if (completion.error !== undefined) {
      taken = outgoing.filter((e) => e.routes?.includes(ERROR_ROUTE) && this.available(e));
      input = { error: completion.error };
    } else {
      const chosen =
        completion.route === undefined
          ? []
          : (Array.isArray(completion.route) ? completion.route : [completion.route]).map(String);
      const always = outgoing.filter((e) => !e.routes && this.available(e));
      const routed = outgoing.filter(
        (e) =>
          e.routes &&
          !e.routes.includes(DEFAULT_ROUTE) &&
          !e.routes.includes(ERROR_ROUTE) &&
          e.routes.some((r) => chosen.includes(r)) &&
          this.available(e),
      );
      const fallback =
        routed.length === 0 ? outgoing.filter((e) => e.routes?.includes(DEFAULT_ROUTE) && this.available(e)) : [];
      taken = [...always, ...routed, ...fallback];
      input = completion.output;
    }
    this.fire(run.node, run.branch, taken, input, completion.outputInHistory === true, false);
    return taken.length;
  }

  /**
   * When nothing else can run: a join waiting for `"all"` runs with what arrived (the other
   * predecessors were not taken); rounds of other joins are dropped. True when a join was triggered.
   */
  flushJoins(): boolean {
    let fired = false;
    for (const [name, round] of this.joins) {
      const join = this.graph.nodes.get(name) as JoinNode;
      if (!round.fired && round.delivered.size > 0 && join.waitFor === "all") {
        this.triggerJoin(name, round);
        fired = true;
      }
      this.joins.delete(name);
    }
    return fired;
  }

  /** A join whose record says it ran although it was not triggered yet (it ran at a flush): trigger it now. */
  forceJoin(name: string): boolean {
    const round = this.joins.get(name);
    if (!round || round.fired || round.delivered.size === 0) return false;
    this.triggerJoin(name, round);
    this.joins.delete(name);
    return true;
  }

  private available(edge: GraphEdge): boolean {
    return edge.maxTraversals === undefined || this.traversals[edge.index]! < edge.maxTraversals;
  }

  private fire(
    from: string,
    branch: string | undefined,
    edges: GraphEdge[],
    input: unknown,
    inHistory: boolean,
    fromStart: boolean,
  ): void {
    const targets = [...new Set(edges.map((e) => e.to))];
    for (const edge of edges) this.traversals[edge.index]! += 1;
    const split = targets.length > 1 || (fromStart && this.options.alwaysBranchFanOut === true);
    for (const target of targets) {
      const node = this.graph.nodes.get(target)!;
      if (isJoinNode(node)) {
        this.deliver(target, node, from, input);
        continue;
      }
      const targetBranch = split ? this.subBranch(branch, target) : branch;
      this.pendingTriggers.push({ node: target, input, branch: targetBranch, inputInHistory: inHistory });
    }
  }

  private subBranch(branch: string | undefined, node: string): string {
    const base = this.options.baseBranch;
    if (branch === base)
      return base ? `${base}.${this.options.workflowName}.${node}` : `${this.options.workflowName}.${node}`;
    return `${branch}.${node}`;
  }

  private deliver(name: string, join: JoinNode, from: string, output: unknown): void {
    let round = this.joins.get(name);
    if (!round) this.joins.set(name, (round = { delivered: new Map(), fired: false }));
    // Outputs arrive only along edges into the join, so `delivered` holds predecessors only, and
    // it holds them all once it is as large (a count, not a scan: a join of thousands of
    // branches is asked on every arrival).
    const all = this.graph.predecessors(name).length;
    if (round.fired) {
      // A join that ran early (waitFor a number or names) drops the rest of its round.
      round.delivered.set(from, output);
      if (round.delivered.size >= all) this.joins.delete(name);
      return;
    }
    round.delivered.set(from, output);
    const waitFor = join.waitFor;
    const ready =
      waitFor === "all"
        ? round.delivered.size >= all
        : typeof waitFor === "number"
          ? round.delivered.size >= waitFor
          : waitFor.every((p) => round.delivered.has(p));
    if (!ready) return;
    this.triggerJoin(name, round);
    if (round.delivered.size >= all) this.joins.delete(name);
    else round.fired = true;
  }

  private triggerJoin(name: string, round: JoinRound): void {
    this.pendingTriggers.push({
      node: name,
      input: Object.fromEntries(round.delivered),
      branch: this.options.baseBranch,
      inputInHistory: false,
    });
  }
}
