import { describe, expect, it } from "@jest/globals";
import { isRewindable, withoutRewound } from "../src/ui/lib/rewind.js";
import { nodeKey, runStatus, runsOf } from "../src/ui/lib/run-status.js";
import type { AgentEvent } from "../src/ui/lib/types.js";

let n = 0;
const ev = (invocationId: string, author: string, extra: Partial<AgentEvent> = {}): AgentEvent => ({
  id: `e${++n}`,
  invocationId,
  author,
  ...extra,
});
const userText = (inv: string, text: string) => ev(inv, "user", { content: { role: "user", parts: [{ text }] } });
const answer = (inv: string, id: string, name: string, response: Record<string, unknown>) =>
  ev(inv, "user", { content: { role: "user", parts: [{ functionResponse: { id, name, response } }] } });
const record = (inv: string, author: string, path: string, status?: string, extra: Partial<AgentEvent> = {}) =>
  ev(inv, author, { nodeInfo: status ? { path, status } : { path }, ...extra });
const callFor = (inv: string, author: string, path: string | undefined, id: string, name: string) =>
  ev(inv, author, {
    ...(path ? { nodeInfo: { path } } : {}),
    content: { role: "model", parts: [{ functionCall: { id, name, args: {} } }] },
    longRunningToolIds: [id],
  });

/** The events of a root workflow in a resumable app, as the server stores them (see the dev-ui workflow test app). */
function pausedOnConfirmation(): AgentEvent[] {
  return [
    userText("i1", "I spent 250 EUR"),
    record("i1", "flow", "flow", "started"),
    record("i1", "check", "flow/check@1", "completed"),
    record("i1", "lookup", "flow/lookup@1", undefined, {
      content: { role: "model", parts: [{ functionCall: { id: "t1", name: "lookup_budget", args: {} } }] },
    }),
    record("i1", "user", "flow/writer@1", undefined, { content: { role: "user", parts: [{ text: "{}" }] } }),
    callFor("i1", "lookup", "flow/lookup@1", "c1", "adk_request_confirmation"),
    ev("i1", "writer", { content: { role: "model", parts: [{ text: "fine" }] } }),
    record("i1", "lookup", "flow/lookup@1", "waiting"),
    record("i1", "writer", "flow/writer@1", "completed"),
  ];
}

describe("nodeKey and runsOf", () => {
  it("drops run markers from each path segment", () => {
    expect(nodeKey("flow/pay@1/charge@12")).toBe("flow/pay/charge");
    expect(nodeKey("flow")).toBe("flow");
  });

  it("groups the answers to a pause with the run they continue; a new message starts a new run", () => {
    const events = [
      ...pausedOnConfirmation(),
      answer("i2", "c1", "adk_request_confirmation", { confirmed: true }),
      record("i2", "lookup", "flow/lookup@1", "completed"),
      userText("i3", "a second expense of 40 EUR that has a very long description"),
    ];
    expect(runsOf(events)).toEqual([
      { id: "i1", invocationIds: ["i1", "i2"], label: "I spent 250 EUR" },
      { id: "i3", invocationIds: ["i3"], label: "a second expense of 40 EUR that has a v…" },
    ]);
  });
});

describe("runStatus", () => {
  it("marks completed nodes, the node paused on a confirmation, and parents of a paused node", () => {
    const events = pausedOnConfirmation();
    const status = runStatus(events, { invocationIds: ["i1"] }, false);
    expect(status.get("flow/check")).toBe("completed");
    expect(status.get("flow/writer")).toBe("completed");
    expect(status.get("flow/lookup")).toBe("waiting");
    expect(status.get("flow")).toBe("waiting");
    expect(status.has("flow/gather")).toBe(false);
  });

  it("while the run streams, an unfinished node is running", () => {
    const events = pausedOnConfirmation().slice(0, 4);
    expect(runStatus(events, { invocationIds: ["i1"] }, true).get("flow/lookup")).toBe("running");
  });

  it("an answered pause continues: the answer's invocation completes the node and later nodes run", () => {
    const events = [
      ...pausedOnConfirmation(),
      answer("i2", "c1", "adk_request_confirmation", { confirmed: true }),
      record("i2", "lookup", "flow/lookup@1", "completed"),
      record("i2", "gather", "flow/gather@1", "completed"),
      callFor("i2", "approval", "flow/approval@1", "c2", "adk_request_input"),
      record("i2", "approval", "flow/approval@1", "waiting"),
    ];
    const run = runsOf(events)[0]!;
    const paused = runStatus(events, run, false);
    expect(paused.get("flow/lookup")).toBe("completed");
    expect(paused.get("flow/gather")).toBe("completed");
    expect(paused.get("flow/approval")).toBe("waiting");
    const done = [
      ...events,
      answer("i3", "c2", "adk_request_input", { approved: true }),
      record("i3", "approval", "flow/approval@1", "completed"),
      record("i3", "pay", "flow/pay@1", "started"),
      record("i3", "charge", "flow/pay@1/charge@1", "completed"),
      record("i3", "pay", "flow/pay@1", "completed"),
      record("i3", "flow", "flow", "completed"),
    ];
    const finished = runStatus(done, runsOf(done)[0]!, false);
    expect(finished.get("flow/approval")).toBe("completed");
    expect(finished.get("flow/pay/charge")).toBe("completed");
    expect(finished.get("flow/pay")).toBe("completed");
    expect(finished.get("flow")).toBe("completed");
    expect([...finished.values()].filter((s) => s !== "completed")).toEqual([]);
  });

  it("marks failures: a failure record, an error event; a node cut off without a pause is interrupted", () => {
    const events = [
      userText("i1", "go"),
      record("i1", "charge", "flow/charge@1", "failed", { errorCode: "CARD_DECLINED" }),
      ev("i1", "writer", { errorCode: "MODEL_ERROR", errorMessage: "boom" }),
      record("i1", "slow", "flow/slow@1", "started"),
    ];
    const status = runStatus(events, { invocationIds: ["i1"] }, false);
    expect(status.get("flow/charge")).toBe("failed");
    expect(status.get("writer")).toBe("failed");
    expect(status.get("flow/slow")).toBe("interrupted");
  });

  it("a loop's second run of a node starts afresh", () => {
    const events = [
      userText("i1", "go"),
      record("i1", "approval", "flow/approval@1", "completed"),
      record("i1", "approval", "flow/approval@2", "started"),
    ];
    expect(runStatus(events, { invocationIds: ["i1"] }, true).get("flow/approval")).toBe("running");
  });

  it("agents and tools without records: an agent's tool call runs until its response; a paused NodeTool workflow is read from the caller's checkpoint", () => {
    const events = [
      userText("i1", "I spent 250 EUR"),
      ev("i1", "expenses", {
        content: { role: "model", parts: [{ functionCall: { id: "t1", name: "submit", args: {} } }] },
      }),
      {
        ...callFor("i1", "expenses", undefined, "c1", "adk_request_input"),
        actions: {
          agentState: {
            suspendedCall: {
              id: "t1",
              checkpoint: {
                events: [
                  record("x", "submit", "submit", "started"),
                  record("x", "submit", "submit/submit@1", "started"),
                  record("x", "policy", "submit/submit@1/policy@1", "completed"),
                  callFor("x", "approval", "submit/submit@1/approval@1", "c1", "adk_request_input"),
                  record("x", "approval", "submit/submit@1/approval@1", "waiting"),
                ],
              },
            },
          },
        },
      },
    ];
    const paused = runStatus(events, { invocationIds: ["i1"] }, false);
    expect(paused.get("expenses")).toBe("waiting");
    expect(paused.get("submit")).toBe("waiting");
    expect(paused.get("submit/submit/policy")).toBe("completed");
    expect(paused.get("submit/submit/approval")).toBe("waiting");
    expect(paused.get("submit/submit")).toBe("waiting");
    const resumed = [
      ...events,
      answer("i2", "c1", "adk_request_input", { approved: true }),
      ev("i2", "expenses", {
        content: { role: "user", parts: [{ functionResponse: { id: "t1", name: "submit", response: { ok: 1 } } }] },
      }),
      ev("i2", "expenses", { content: { role: "model", parts: [{ text: "filed" }] } }),
    ];
    const done = runStatus(resumed, runsOf(resumed)[0]!, false);
    expect(done.get("expenses")).toBe("completed");
    expect(done.get("submit")).toBe("completed");
    expect(done.get("submit/submit/approval")).toBe("completed");
    expect(done.get("submit/submit")).toBe("completed");
    expect([...done.values()].filter((s) => s !== "completed")).toEqual([]);
  });
});

describe("rewind", () => {
  it("hides the rewound invocation, everything after it and the rewind event", () => {
    const events = [
      userText("i1", "first"),
      ev("i1", "bot"),
      userText("i2", "second"),
      ev("i2", "bot"),
      userText("i3", "third"),
      ev("r", "user", { actions: { rewindBeforeInvocationId: "i2" } }),
      userText("i4", "again"),
    ];
    expect(withoutRewound(events).map((e) => e.invocationId)).toEqual(["i1", "i1", "i4"]);
  });

  it("offers rewind on stored user messages only, not on answers or unsent ones", () => {
    expect(isRewindable(userText("i1", "hi"))).toBe(true);
    expect(isRewindable(answer("i1", "c", "x", {}))).toBe(false);
    expect(isRewindable({ ...userText("i1", "hi"), id: "local-1" })).toBe(false);
    expect(isRewindable(ev("i1", "bot", { content: { parts: [{ text: "x" }] } }))).toBe(false);
    const nodeInput = {
      ...userText("i1", '{"amount":250}'),
      nodeInfo: { path: "flow/writer@1" },
      branch: "flow.writer",
    };
    expect(isRewindable(nodeInput)).toBe(false);
  });
});
