import { getFunctionResponses, type Event, type NodeRunStatus } from "../events/event.js";
import { sessionEvents } from "../sessions/session-events.js";
import type { Session } from "../sessions/session.js";

/** What a workflow stores in `actions.agentState` of its records (resumable apps). */
export interface RecordState {
  /** Start record: the workflow's input. */
  input?: unknown;
  /** Waiting record: the calls the node waits on. */
  interrupts?: string[];
  /** The node's local state after this run. */
  nodeState?: Record<string, unknown>;
  /** Completion record: the output is an agent's answer already in the branch's history. */
  inHistory?: boolean;
}

/** The status and state of a record event, when it is one. */
export function recordOf(event: Event): { path: string; status: NodeRunStatus; state: RecordState } | undefined {
  const info = event.nodeInfo;
  if (!info?.status) return undefined;
  return { path: info.path, status: info.status, state: (event.actions.agentState ?? {}) as RecordState };
}

/** `name@run` of the last path segment (run undefined for a workflow's own path). */
export function leafOf(path: string): { name: string; run?: string } {
  const leaf = path.slice(path.lastIndexOf("/") + 1);
  const at = leaf.indexOf("@");
  return at < 0 ? { name: leaf } : { name: leaf.slice(0, at), run: leaf.slice(at + 1) };
}

/**
 * The records of one workflow run in a session: the events from the run's start on (its start
 * record in a resumable app, else the position the run began at). The session's events are read
 * live on every call (`sessionEvents`: the store's list while the session follows it, without a
 * copy), so records the run writes are seen at once.
 */
export class RunRecords {
  private constructor(
    private readonly session: Session,
    readonly startIndex: number,
    readonly path: string,
  ) {}

  /** A new run starting at the current end of the session. */
  static fresh(session: Session, path: string): RunRecords {
    return new RunRecords(session, sessionEvents(session).length, path);
  }

  /**
   * The run to resume: from the latest start record of `path`, unless the run it starts already
   * completed (then undefined: there is nothing to resume).
   */
  static latest(session: Session, path: string): RunRecords | undefined {
    const events = sessionEvents(session);
    for (let i = events.length - 1; i >= 0; i--) {
      const record = recordOf(events[i]!);
      if (!record || record.path !== path) continue;
      if (record.status === "completed") return undefined;
      if (record.status === "started") return new RunRecords(session, i, path);
    }
    return undefined;
  }

  private get events(): readonly Event[] {
    return sessionEvents(this.session);
  }

  /** What the start record stored: the workflow's input and whether it is in the history. */
  get startState(): RecordState {
    const start = this.events[this.startIndex];
    return (start ? recordOf(start)?.state : undefined) ?? {};
  }

  /** The records of this workflow's direct node runs (`path/name@run`), in order. */
  childRecords(): { event: Event; name: string; run: string; status: NodeRunStatus; state: RecordState }[] {
    const out: { event: Event; name: string; run: string; status: NodeRunStatus; state: RecordState }[] = [];
    const prefix = `${this.path}/`;
    for (let i = this.startIndex; i < this.events.length; i++) {
      const event = this.events[i]!;
      const record = recordOf(event);
      if (!record?.path.startsWith(prefix) || record.path.indexOf("/", prefix.length) >= 0) continue;
      // A nested workflow's own start record shares its node run's path: not a node record.
      if (record.status === "started") continue;
      const { name, run } = leafOf(record.path);
      if (run === undefined) continue;
      out.push({ event, name, run, status: record.status, state: record.state });
    }
    return out;
  }

  /** The latest record written for exactly this path in this run. */
  latestRecord(path: string): { event: Event; status: NodeRunStatus; state: RecordState } | undefined {
    for (let i = this.events.length - 1; i >= this.startIndex; i--) {
      const event = this.events[i]!;
      const record = recordOf(event);
      if (record && record.path === path) return { event, status: record.status, state: record.state };
    }
    return undefined;
  }

  /** Every event written under exactly this path in this run. */
  eventsOf(path: string): Event[] {
    const out: Event[] = [];
    for (let i = this.startIndex; i < this.events.length; i++) {
      const event = this.events[i]!;
      if (event.nodeInfo?.path === path) out.push(event);
    }
    return out;
  }

  /** The client's answers (function responses in user events) since the run began, by call id. */
  answers(): Map<string, Record<string, unknown>> {
    const out = new Map<string, Record<string, unknown>>();
    for (let i = this.startIndex; i < this.events.length; i++) {
      const event = this.events[i]!;
      if (event.author !== "user") continue;
      for (const response of getFunctionResponses(event))
        if (response.id) out.set(response.id, response.response ?? {});
    }
    return out;
  }
}
