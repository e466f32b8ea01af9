import type { Content } from "../content/content.js";
import { CallbackContext } from "../context/callback-context.js";
import type { InvocationContext } from "../context/invocation-context.js";
import { createEventActions, type RouteValue } from "../events/event-actions.js";
import { createEvent, type Event, type EventInit } from "../events/event.js";
import type { BaseNode } from "./base-node.js";
import { RequestInput, type RequestInputParams } from "./request-input.js";

/** What a node may hand to `ctx.runNode`: a node, an agent, a tool or a named function. */
export type RunnableNodeLike = unknown;

export interface RunNodeOptions {
  /**
   * Identifies this call among the calls of the same node from this node run (what a resumed
   * run matches on). Default: the call's position (`"1"`, `"2"`, ...); give one when the order of
   * calls is not stable but their identity is (e.g. an item's id).
   */
  runId?: string;
}

/** What a node context needs from the engine running it (internal). */
export interface NodeHost {
  /** Emits an event; settles once the runner has persisted it. */
  push(event: Event): Promise<void>;
  /** Runs a child node for `ctx.runNode` and returns its output. */
  runChild(parent: NodeContext, nodeLike: RunnableNodeLike, input: unknown, runId: string): Promise<unknown>;
  /** The events written under a node path in the current workflow run (what a resumed node looks back on). */
  eventsOf(path: string): Event[];
}

/** How the engine makes a node context (internal). */
export interface NodeContextInit {
  invocation: InvocationContext;
  node: BaseNode;
  path: string;
  run: string;
  attempt: number;
  input: unknown;
  resume: boolean;
  resumeInputs: Record<string, unknown>;
  nodeState: Record<string, unknown>;
  live: boolean;
  host: NodeHost;
  /** The input is already in the conversation (the user's message, or an agent's answer on this branch). */
  inputInHistory?: boolean;
}

/**
 * What a node runs with: the session state (writes are stored with the node's output event),
 * artifacts and memory (as in callbacks), plus the node's own run: its route, its local state,
 * the answers it was resumed with, `emit` to stream an event and `runNode` to run other nodes
 * from code.
 */
export class NodeContext extends CallbackContext {
  readonly node: BaseNode;
  /** `workflow/node@run`, as in the events' `nodeInfo.path`. */
  readonly nodePath: string;
  /** Which activation of the node this is in its workflow run (`"1"`, `"2"`, ... or a `runId`). */
  readonly runId: string;
  /** 1 on the first attempt, more on retries. */
  readonly attempt: number;
  /** The node's input (also passed as the second argument). */
  readonly input: unknown;
  /** True when this run continues a paused or interrupted one. */
  readonly isResume: boolean;
  /** The client's answers to this node's `RequestInput`s, by interrupt id. */
  readonly resumeInputs: Readonly<Record<string, unknown>>;
  /**
   * State of this node alone, kept across its runs in one workflow run (e.g. a loop counter)
   * and across pauses and restarts of a resumable app (stored with the node's records).
   */
  readonly nodeState: Record<string, unknown>;
  /** The route(s) that select the next nodes (edges with a matching route). */
  route?: RouteValue | RouteValue[];
  /** @internal Set when the node runs live (an agent node then runs its agent live). */
  readonly live: boolean;
  /** @internal The input is already in the conversation (an agent node does not show it again). */
  readonly inputInHistory: boolean;
  private readonly host: NodeHost;
  private readonly childCounters = new Map<string, number>();
  private readonly attached = new Map<string, unknown>();

  constructor(init: NodeContextInit) {
    super(init.invocation, createEventActions());
    this.node = init.node;
    this.nodePath = init.path;
    this.runId = init.run;
    this.attempt = init.attempt;
    this.input = init.input;
    this.isResume = init.resume;
    this.resumeInputs = init.resumeInputs;
    this.nodeState = init.nodeState;
    this.live = init.live;
    this.inputInHistory = init.inputInHistory ?? false;
    this.host = init.host;
  }

  get nodeName(): string {
    return this.node.name;
  }

  /**
   * Streams an event from this node (author: the node): a text, a content, or event fields.
   * State written so far goes with it.
   */
  emit(value: string | Content | Omit<EventInit, "author">): void {
    const init: Omit<EventInit, "author"> =
      typeof value === "string"
        ? { content: { role: "model", parts: [{ text: value }] } }
        : "parts" in value || "role" in value
          ? { content: { role: (value as Content).role ?? "model", parts: (value as Content).parts ?? [] } }
          : (value as Omit<EventInit, "author">);
    const event = this.createNodeEvent({
      ...init,
      actions: { ...init.actions, stateDelta: this.takeStateDelta(init.actions?.stateDelta) },
    });
    this.host.push(event).catch(() => {});
  }

  /**
   * A request for the client's input; return (or yield) it to pause the node. Needs a resumable
   * app (`App({ resumability: { isResumable: true } })`).
   */
  requestInput(params: RequestInputParams = {}): RequestInput {
    return new RequestInput(params);
  }

  /**
   * Runs a node (or an agent, a tool, a named function) from code and returns its output; its
   * events are this node's stream. On resume a call that completed before returns its recorded
   * output without running again; a call that paused pauses this node too.
   */
  runNode(nodeLike: RunnableNodeLike, input?: unknown, options: RunNodeOptions = {}): Promise<unknown> {
    const name = nameOf(nodeLike);
    let runId = options.runId;
    if (runId === undefined) {
      const n = (this.childCounters.get(name) ?? 0) + 1;
      this.childCounters.set(name, n);
      runId = String(n);
    } else if (/^\d+$/.test(runId)) {
      return Promise.reject(
        new TypeError(`runNode: a runId must not be all digits (those are the automatic ones); got "${runId}".`),
      );
    }
    return this.host.runChild(this, nodeLike, input, runId);
  }

  /** @internal The events this node run wrote before (in this workflow run): what a resumed node looks back on. */
  priorEvents(): Event[] {
    return this.host.eventsOf(this.nodePath);
  }

  /** @internal An event authored by this node, on its branch, with its path. */
  createNodeEvent(init: Omit<EventInit, "author"> & { author?: string }): Event {
    return createEvent({
      ...init,
      author: init.author ?? this.node.name,
      invocationId: this.invocationId,
      branch: this.branch,
      nodeInfo: init.nodeInfo ?? { path: this.nodePath },
    });
  }

  /**
   * @internal The state written since the last event that carried state (merged over `extra`).
   * The writes stay in `actions` so reads see them until the events are stored.
   */
  takeStateDelta(extra: Record<string, unknown> = {}): Record<string, unknown> {
    const delta: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(this.actions.stateDelta)) {
      if (this.attached.has(key) && Object.is(this.attached.get(key), value)) continue;
      this.attached.set(key, value);
      delta[key] = value;
    }
    for (const [key, value] of Object.entries(extra)) {
      this.attached.set(key, value);
      delta[key] = value;
    }
    return delta;
  }
}

function nameOf(nodeLike: unknown): string {
  if (typeof nodeLike === "function") return nodeLike.name || "anonymous";
  if (typeof nodeLike === "object" && nodeLike !== null && typeof (nodeLike as { name?: unknown }).name === "string")
    return (nodeLike as { name: string }).name;
  return "node";
}
