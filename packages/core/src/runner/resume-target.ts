import type { BaseAgent } from "../agents/base-agent.js";
import type { Content } from "../content/content.js";
import type { NodeScope } from "../context/invocation-context.js";
import { isFinalResponse, type Event } from "../events/event.js";
import type { Session } from "../sessions/session.js";
import { isWorkflow } from "../workflow/workflow.js";
import { leafOf, recordOf } from "../workflow/workflow-records.js";
import { findAgentToRun, findMatchingFunctionCall } from "./find-agent-to-run.js";
import { sessionEvents } from "../sessions/session-events.js";

/**
 * In a resumable app, the agent that continues when the new message answers a pending call: the
 * outermost workflow above the agent (or node) that made the call, run in resume mode so each
 * level continues from its records (completed nodes are not run again, the paused node continues,
 * its parents go on after it). Undefined when the message answers nothing, or the caller sits in
 * no workflow (then the caller itself continues, as outside resumable apps).
 */
export function findResumeTarget(session: Session, root: BaseAgent): BaseAgent | undefined {
  const call = findMatchingFunctionCall(sessionEvents(session));
  if (!call) return undefined;
  const caller = callerOf(call, root);
  return caller ? outermostWorkflow(caller) : undefined;
}

/**
 * What `runner.resume` continues: the top-level workflow whose latest run has no end record
 * (interrupted by a crash, an abort or an error, or paused), else the agent of an invocation that
 * stopped before its final answer. Undefined when the latest run completed.
 */
export function findInterruptedRun(session: Session, root: BaseAgent): BaseAgent | undefined {
  const events = sessionEvents(session);
  for (let i = events.length - 1; i >= 0; i--) {
    const record = recordOf(events[i]!);
    if (!record || record.path.includes("/")) continue;
    if (record.status === "completed") break;
    if (record.status === "started") return root.findAgent(record.path) ?? undefined;
  }
  const last = lastAgentEvent(events);
  if (!last) return undefined;
  if (last.author === "user") return findAgentToRun(session, root);
  if (isFinalResponse(last) && !last.errorCode) return undefined;
  return root.findAgent(last.author) ?? root;
}

function lastAgentEvent(events: readonly Event[]): Event | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.partial) continue;
    // A workflow's own end record closes a run; other records are bookkeeping.
    if (event.nodeInfo?.status && event.nodeInfo.status !== "completed") continue;
    return event;
  }
  return undefined;
}

/** The agent that made a call: the workflow at the head of its node path, else its author. */
function callerOf(call: Event, root: BaseAgent): BaseAgent | undefined {
  const path = call.nodeInfo?.path;
  if (path) {
    const top = root.findAgent(leafOf(path.split("/")[0]!).name);
    if (top) return top;
  }
  return root.findAgent(call.author);
}

function outermostWorkflow(agent: BaseAgent): BaseAgent | undefined {
  let found: BaseAgent | undefined;
  for (let current: BaseAgent | undefined = agent; current; current = current.parentAgent)
    if (isWorkflow(current)) found = current;
  return found;
}

/** The scope a workflow continues its latest run in (its input is in the start record). */
export function resumeScope(agent: BaseAgent, message: Content | undefined): NodeScope {
  return { path: agent.name, resume: true, input: message, inputInHistory: message !== undefined };
}
