// Reads one `notes` session as stored and holds it against what its client was told: every
// acknowledged turn whole (the same events, in order, its note's version in state), nothing
// duplicated, runs not interleaved, and any other run one of the attempts that failed, stored
// as a prefix of a turn and closed the way the runner documents (TOOL_CALLS_INTERRUPTED for a
// call left without its response; docs/security.md, "Well-formed history").
import { answerOf, type TurnResult, type WireEvent } from "./notes-client.js";

export interface StoredSession {
  id: string;
  state: Record<string, unknown>;
  events: WireEvent[];
}

/** What the stored runs the client never got an answer for look like. */
export interface CutFigures {
  /** Runs stored without an acknowledgement (each one a failed attempt). */
  cut: number;
  /** ... of which only the user's message was stored. */
  userOnly: number;
  /** ... of which a call was left without its response and then closed with TOOL_CALLS_INTERRUPTED. */
  closedCalls: number;
  /** ... of which the tool's response was stored but not the model's answer. */
  toolDone: number;
  /** ... of which the whole turn was stored but its answer never reached the client. */
  wholeButLost: number;
}

const INTERRUPTED = "TOOL_CALLS_INTERRUPTED";

/** Problems found (empty when the session is consistent) and the figures of its cut runs. */
export function auditSession(
  session: StoredSession,
  turns: readonly TurnResult[],
): { problems: string[]; figures: CutFigures } {
  const problems: string[] = [];
  const say = (text: string) => problems.push(`${session.id}: ${text}`);
  const figures: CutFigures = { cut: 0, userOnly: 0, closedCalls: 0, toolDone: 0, wholeButLost: 0 };
  const events = session.events;

  const ids = events.map((e) => e.id);
  if (new Set(ids).size !== ids.length) say("an event id is stored twice");
  for (let i = 1; i < events.length; i++) {
    if ((events[i]!.timestamp ?? 0) < (events[i - 1]!.timestamp ?? 0)) say(`event ${i} is older than event ${i - 1}`);
  }

  // Runs take turns: each invocation's events are contiguous.
  const runs: WireEvent[][] = [];
  for (const e of events) {
    const last = runs.at(-1);
    if (last && last[0]!.invocationId === e.invocationId) last.push(e);
    else runs.push([e]);
  }
  if (new Set(runs.map((r) => r[0]!.invocationId)).size !== runs.length) say("an invocation's events are split");

  const acknowledged = new Map(turns.map((t) => [t.events[0]?.invocationId, t]));
  let lastAcked = 0;
  const cutsOf = new Map<number, number>();
  for (const run of runs) {
    const first = run[0]!;
    const n = Number(/^note (\d+)$/.exec(first.content?.parts?.[0]?.text ?? "")?.[1] ?? Number.NaN);
    if (first.author !== "user" || Number.isNaN(n)) {
      say(`invocation ${first.invocationId} does not start with a user's note`);
      continue;
    }
    const turn = acknowledged.get(first.invocationId);
    if (turn) {
      if (turn.n !== n) say(`the answer to note ${turn.n} is stored under note ${n}`);
      if (n !== lastAcked + 1) say(`note ${n} is stored after note ${lastAcked}`);
      lastAcked = n;
      const stored = run.slice(1).map((e) => e.id);
      const received = turn.events.map((e) => e.id);
      if (JSON.stringify(stored) !== JSON.stringify(received))
        say(`note ${n} (${turn.mode}): stored ${stored.join(",")}, the client received ${received.join(",")}`);
      checkWholeTurn(run, n, say);
      const version = answerOf(run, n)?.version;
      if (session.state[`note_${n}`] !== version)
        say(`state note_${n} is ${session.state[`note_${n}`]}, answered v${version}`);
      continue;
    }
    // Not acknowledged: a failed attempt of the next turn, sent again later.
    figures.cut += 1;
    cutsOf.set(n, (cutsOf.get(n) ?? 0) + 1);
    if (n !== lastAcked + 1) say(`an unanswered note ${n} is stored after note ${lastAcked}`);
    const shape = cutShape(run, n);
    if ("problem" in shape) say(`unanswered note ${n}: ${shape.problem}`);
    else figures[shape.kind] += 1;
  }
  if (lastAcked !== turns.length) say(`the last acknowledged note stored is ${lastAcked} of ${turns.length}`);
  for (const t of turns) {
    const cuts = cutsOf.get(t.n) ?? 0;
    if (cuts > t.failures.length)
      say(`${cuts} unanswered runs of note ${t.n} are stored, ${t.failures.length} attempts failed`);
  }

  // State is what the stored events' deltas make it.
  const folded: Record<string, unknown> = {};
  for (const e of events) Object.assign(folded, e.actions?.stateDelta ?? {});
  const sessionState = Object.fromEntries(
    Object.entries(session.state).filter(([k]) => !k.startsWith("app:") && !k.startsWith("user:")),
  );
  if (JSON.stringify(sortKeys(folded)) !== JSON.stringify(sortKeys(sessionState)))
    say(`state ${JSON.stringify(sessionState)} is not the events' deltas ${JSON.stringify(folded)}`);
  if (session.state.last_note !== turns.length) say(`state last_note is ${session.state.last_note}`);
  return { problems, figures };
}

function sortKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b)));
}

const callOf = (e: WireEvent) => e.content?.parts?.find((p) => p.functionCall)?.functionCall;
const responseOf = (e: WireEvent) => e.content?.parts?.find((p) => p.functionResponse)?.functionResponse;

/** An acknowledged turn: the note, the call, its response (with the artifact), the answer. */
function checkWholeTurn(run: WireEvent[], n: number, say: (text: string) => void): void {
  const [, call, response, answer, ...rest] = run;
  const c = call && callOf(call);
  const r = response && responseOf(response);
  if (c?.name !== "save_note" || c.args?.n !== n) return void say(`note ${n}: second event is not save_note(${n})`);
  if (r?.id !== c.id || r?.response?.n !== n) return void say(`note ${n}: third event is not the call's response`);
  const version = r.response?.version;
  if (response!.actions?.artifactDelta?.[`note-${n}.txt`] !== version)
    say(`note ${n}: the response's artifactDelta does not name v${version}`);
  if (!answer || answerOf([answer], n)?.version !== version) say(`note ${n}: fourth event is not the answer`);
  if (rest.length > 0) say(`note ${n}: ${rest.length} events after the answer`);
}

type CutKind = Exclude<keyof CutFigures, "cut">;

/** How a run the client got no answer for was left, or what is wrong with it. */
function cutShape(run: WireEvent[], n: number): { kind: CutKind } | { problem: string } {
  const [, call, second, third, ...rest] = run;
  if (!call) return { kind: "userOnly" };
  const c = callOf(call);
  if (c?.name !== "save_note" || c.args?.n !== n) return { problem: "second event is not save_note" };
  if (!second) return { problem: "its call was never closed" };
  const r = responseOf(second);
  if (second.errorCode === INTERRUPTED) {
    if (r?.id !== c.id || third) return { problem: "the interrupted-call event does not close exactly its call" };
    return { kind: "closedCalls" };
  }
  if (r?.id !== c.id || second.errorCode) return { problem: "third event is not the call's response" };
  if (!third) return { kind: "toolDone" };
  if (answerOf([third], n) === undefined || rest.length > 0) return { problem: "fourth event is not the answer" };
  return { kind: "wholeButLost" };
}
