import type { AgentEvent } from "./types.js";

/** What a node did in a run, as the Graph tab colours it. */
export type NodeStatus = "running" | "waiting" | "completed" | "failed" | "interrupted";

/**
 * One run of the app: the invocation a user message started plus the invocations that answered
 * its pauses (each answer is a new invocation that continues the run).
 */
export interface RunSummary {
  /** The first invocation's id. */
  id: string;
  invocationIds: string[];
  /** The user's message that started it (shortened). */
  label: string;
}

/** `expense_flow/pay@1/charge@2` → `expense_flow/pay/charge`: the node as the graph keys it. */
export function nodeKey(path: string): string {
  return path
    .split("/")
    .map((segment) => segment.replace(/@\d+$/, ""))
    .join("/");
}

/** The session's runs in order, grouping each answer to a pause with the run it continues. */
export function runsOf(events: readonly AgentEvent[]): RunSummary[] {
  const runs: RunSummary[] = [];
  const seen = new Set<string>();
  for (const event of events) {
    const id = event.invocationId;
    if (!id || seen.has(id) || event.partial) continue;
    seen.add(id);
    const parts = event.author === "user" ? (event.content?.parts ?? []) : [];
    const answersOnly = parts.length > 0 && parts.every((p) => p.functionResponse);
    const current = runs[runs.length - 1];
    if (current && (answersOnly || event.author !== "user")) {
      current.invocationIds.push(id);
      continue;
    }
    const text = parts
      .map((p) => p.text ?? "")
      .join(" ")
      .trim();
    runs.push({ id, invocationIds: [id], label: text.length > 40 ? `${text.slice(0, 39)}…` : text || id });
  }
  return runs;
}

interface Tally {
  status: Map<string, NodeStatus>;
  /** Keys that come from `nodeInfo.path` (workflow nodes), as opposed to agent and tool names. */
  paths: Set<string>;
  /** The full path (with run markers) last seen per key: a new run of a node starts afresh. */
  lastPath: Map<string, string>;
  /** Calls for the client (long-running) each key emitted. */
  clientCalls: Map<string, Set<string>>;
  /** Ordinary tool calls per tool name. */
  toolCalls: Map<string, Set<string>>;
  /** Keys read from a paused tool's checkpoint, by the tool call's id: its response ends them. */
  checkpoints: Map<string, Set<string>>;
}

/**
 * What each node did in a run, from the session's events: workflow records and node events
 * (`nodeInfo.path` and `nodeInfo.status`), authors and their tool calls and responses, error
 * events, and calls waiting for the client (`longRunningToolIds` not answered by the user yet).
 * A workflow paused inside a `NodeTool` is read from the checkpoint its caller stored
 * (`actions.agentState.suspendedCall.checkpoint.events`). Keys are node paths without run
 * markers (`wf/node`) and agent and tool names: the ids the server's DOT gives its nodes.
 * `active`: the run is still streaming (unfinished nodes are running, not interrupted).
 */
export function runStatus(
  events: readonly AgentEvent[],
  run: Pick<RunSummary, "invocationIds">,
  active: boolean,
): Map<string, NodeStatus> {
  const answers = responses(events);
  const ids = new Set(run.invocationIds);
  const tally: Tally = {
    status: new Map(),
    paths: new Set(),
    lastPath: new Map(),
    clientCalls: new Map(),
    toolCalls: new Map(),
    checkpoints: new Map(),
  };
  for (const event of events) if (event.invocationId && ids.has(event.invocationId)) read(tally, event);

  const open = (map: Map<string, Set<string>>, key: string, answered: ReadonlySet<string>) =>
    [...(map.get(key) ?? [])].some((id) => !answered.has(id));
  const waitingOnClient = (key: string) => open(tally.clientCalls, key, answers.byClient);
  // a paused tool answered: what its checkpoint left unfinished finished with it
  for (const [callId, keys] of tally.checkpoints)
    if (answers.any.has(callId))
      for (const key of keys) if (tally.status.get(key) !== "failed") tally.status.set(key, "completed");
  const out = new Map<string, NodeStatus>();
  for (const [key, status] of tally.status) {
    let next = status;
    if (status === "waiting" && tally.clientCalls.has(key) && !waitingOnClient(key))
      next = active ? "running" : "completed";
    if (status === "running" && waitingOnClient(key)) next = "waiting";
    out.set(key, next);
  }
  if (active) return out;
  const waiting = [...out].filter(([, s]) => s === "waiting").map(([k]) => k);
  for (const [key, status] of out) {
    if (status !== "running") continue;
    if (tally.paths.has(key)) out.set(key, waiting.some((w) => w.startsWith(`${key}/`)) ? "waiting" : "interrupted");
    // a tool whose call got no response yet while the run is paused: the pause is inside it (NodeTool)
    else if (open(tally.toolCalls, key, answers.any)) out.set(key, waiting.length > 0 ? "waiting" : "interrupted");
    // an agent without records: done when its run ended
    else out.set(key, "completed");
  }
  return out;
}

function read(tally: Tally, event: AgentEvent): void {
  if (event.partial) return;
  const { status } = tally;
  const info = event.nodeInfo as { path?: unknown; status?: unknown } | undefined;
  const fullPath = typeof info?.path === "string" && info.path ? info.path : undefined;
  const path = fullPath ? nodeKey(fullPath) : undefined;
  const author = event.author && event.author !== "user" ? event.author : undefined;
  const key = path ?? author;
  if (key) {
    if (path && fullPath) {
      tally.paths.add(path);
      if (tally.lastPath.get(path) !== fullPath) status.delete(path); // a new run of the node (loop)
      tally.lastPath.set(path, fullPath);
    }
    const recorded = info?.status;
    const current = status.get(key);
    if (event.errorCode || event.errorMessage || recorded === "failed") status.set(key, "failed");
    else if (recorded === "completed" || recorded === "waiting") status.set(key, recorded);
    else if (current === undefined || current === "running" || current === "interrupted") status.set(key, "running");
  }
  const longRunning = new Set(event.longRunningToolIds ?? []);
  for (const part of event.content?.parts ?? []) {
    const call = part.functionCall;
    if (call?.id && author) {
      if (longRunning.has(call.id)) {
        if (key) add(tally.clientCalls, key, call.id);
        add(tally.clientCalls, call.name, call.id);
        status.set(call.name, "waiting");
      } else if (!path) {
        // an agent's tool (a workflow node's tool calls are the node's business)
        add(tally.toolCalls, call.name, call.id);
        status.set(call.name, "running");
      }
    }
    const response = part.functionResponse;
    if (response && author && !path) {
      const error = typeof response.response === "object" && response.response !== null && "error" in response.response;
      status.set(response.name, error ? "failed" : "completed");
    }
  }
  const suspended = (
    event.actions?.agentState as { suspendedCall?: { id?: unknown; checkpoint?: { events?: unknown } } } | undefined
  )?.suspendedCall;
  const children = suspended?.checkpoint?.events;
  if (!Array.isArray(children)) return;
  const before = new Set(tally.status.keys());
  for (const child of children as AgentEvent[]) read(tally, child);
  if (typeof suspended?.id === "string") {
    const keys = [...tally.status.keys()].filter((k) => !before.has(k));
    add(tally.checkpoints, suspended.id, ...keys);
  }
}

function add(map: Map<string, Set<string>>, key: string, ...ids: string[]): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  for (const id of ids) set.add(id);
}

/** Call ids answered: by the client (user-authored responses) and by anyone (tools' own responses). */
function responses(events: readonly AgentEvent[]): { byClient: Set<string>; any: Set<string> } {
  const byClient = new Set<string>();
  const any = new Set<string>();
  for (const event of events)
    for (const part of event.content?.parts ?? []) {
      const id = part.functionResponse?.id;
      if (!id) continue;
      any.add(id);
      if (event.author === "user") byClient.add(id);
    }
  return { byClient, any };
}
