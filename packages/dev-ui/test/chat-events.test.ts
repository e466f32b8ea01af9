import { describe, expect, it } from "@jest/globals";
import {
  applyEvent,
  confirmationDetails,
  mergeStored,
  parseToolAnswer,
  pendingCalls,
  settle,
} from "../src/ui/lib/chat-events.js";
import type { AgentEvent } from "../src/ui/lib/types.js";

const text = (id: string, t: string, extra: Partial<AgentEvent> = {}): AgentEvent => ({
  id,
  author: "bot",
  content: { role: "model", parts: [{ text: t }] },
  ...extra,
});

describe("applyEvent", () => {
  it("accumulates partial chunks and replaces them with the final event (http-api.md 5.3)", () => {
    let list: AgentEvent[] = [{ id: "u", author: "user", content: { role: "user", parts: [{ text: "hi" }] } }];
    list = applyEvent(list, text("p1", "Echo", { partial: true }));
    list = applyEvent(list, text("p2", ": stream me", { partial: true }));
    expect(list).toHaveLength(2);
    expect(list[1]!.content!.parts![0]!.text).toBe("Echo: stream me");
    expect(list[1]!.partial).toBe(true);
    list = applyEvent(list, text("final", "Echo: stream me", { usageMetadata: { totalTokenCount: 3 } }));
    expect(list.map((e) => e.id)).toEqual(["u", "final"]);
    expect(list[1]!.partial).toBeUndefined();
  });

  it("keeps thoughts apart from the answer while streaming", () => {
    let list: AgentEvent[] = [];
    list = applyEvent(list, {
      id: "a",
      author: "bot",
      partial: true,
      content: { parts: [{ text: "think", thought: true }] },
    });
    list = applyEvent(list, {
      id: "b",
      author: "bot",
      partial: true,
      content: { parts: [{ text: "ing", thought: true }, { text: "Hel" }] },
    });
    list = applyEvent(list, { id: "c", author: "bot", partial: true, content: { parts: [{ text: "lo" }] } });
    expect(list[0]!.content!.parts).toEqual([{ text: "thinking", thought: true }, { text: "Hello" }]);
  });

  it("does not merge partials of different authors", () => {
    let list = applyEvent([], text("a", "one", { partial: true }));
    list = applyEvent(list, { ...text("b", "two", { partial: true }), author: "other" });
    expect(list).toHaveLength(2);
  });

  it("merges a second frame with a known id (Python's artifact split, 5.4)", () => {
    let list = applyEvent([], text("x", "saved"));
    list = applyEvent(list, { id: "x", author: "bot", actions: { artifactDelta: { "a.txt": 0 } } });
    expect(list).toHaveLength(1);
    expect(list[0]!.content!.parts![0]!.text).toBe("saved");
    expect(list[0]!.actions!.artifactDelta).toEqual({ "a.txt": 0 });
  });

  it("settle drops partials left by an aborted stream", () => {
    expect(settle([text("a", "done"), text("b", "half", { partial: true })]).map((e) => e.id)).toEqual(["a"]);
  });
});

describe("mergeStored", () => {
  it("takes the stored events and keeps unstored error events only", () => {
    const stored: AgentEvent[] = [{ id: "u1", author: "user" }, text("a", "answer")];
    const shown: AgentEvent[] = [
      { id: "local-1", author: "user" },
      text("a", "answer"),
      { id: "e", author: "bot", errorCode: "X", errorMessage: "boom" },
    ];
    expect(mergeStored(stored, shown).map((e) => e.id)).toEqual(["u1", "a", "e"]);
    expect(mergeStored(stored, [...stored, { id: "e", author: "bot", errorCode: "X" }]).map((e) => e.id)).toEqual([
      "u1",
      "a",
      "e",
    ]);
    expect(mergeStored([...stored, { id: "e", author: "bot", errorCode: "X" }], shown).map((e) => e.id)).toEqual([
      "u1",
      "a",
      "e",
    ]);
  });
});

describe("pendingCalls", () => {
  const confirmation: AgentEvent = {
    id: "ev2",
    author: "bot",
    longRunningToolIds: ["c2"],
    content: {
      role: "user",
      parts: [
        {
          functionCall: {
            id: "c2",
            name: "adk_request_confirmation",
            args: {
              originalFunctionCall: { id: "c1", name: "pay", args: { amount: 5 } },
              toolConfirmation: { hint: "Pay 5?", confirmed: false },
            },
          },
        },
      ],
    },
  };
  const longRunning: AgentEvent = {
    id: "ev3",
    author: "bot",
    longRunningToolIds: ["l1"],
    content: { role: "model", parts: [{ functionCall: { id: "l1", name: "ask_manager", args: { q: 1 } } }] },
  };

  it("lists unanswered long-running calls and confirmations with their event ids", () => {
    const plain: AgentEvent = {
      id: "ev1",
      author: "bot",
      longRunningToolIds: [],
      content: { parts: [{ functionCall: { id: "f", name: "add" } }] },
    };
    expect(pendingCalls([plain, confirmation, longRunning])).toEqual([
      {
        eventId: "ev2",
        kind: "confirmation",
        call: expect.objectContaining({ id: "c2", name: "adk_request_confirmation" }),
      },
      { eventId: "ev3", kind: "long-running", call: expect.objectContaining({ id: "l1", name: "ask_manager" }) },
    ]);
  });

  it("drops calls once a function response with their id is in the session", () => {
    const answer: AgentEvent = {
      id: "ev4",
      author: "user",
      content: {
        role: "user",
        parts: [{ functionResponse: { id: "l1", name: "ask_manager", response: { result: "ok" } } }],
      },
    };
    expect(pendingCalls([confirmation, longRunning, answer]).map((p) => p.call.id)).toEqual(["c2"]);
  });

  it("keeps a call pending after the tool's own interim response", () => {
    const interim: AgentEvent = {
      id: "ev5",
      author: "bot",
      content: {
        role: "user",
        parts: [{ functionResponse: { id: "l1", name: "ask_manager", response: { status: "pending" } } }],
      },
    };
    expect(pendingCalls([longRunning, interim]).map((p) => p.call.id)).toEqual(["l1"]);
  });

  it("reads the original call and hint of a confirmation", () => {
    expect(confirmationDetails(confirmation.content!.parts![0]!.functionCall!)).toEqual({
      tool: "pay",
      args: { amount: 5 },
      hint: "Pay 5?",
    });
    expect(confirmationDetails({ name: "adk_request_confirmation" })).toEqual({});
  });
});

describe("parseToolAnswer", () => {
  it("sends JSON objects as they are and wraps anything else as {result}", () => {
    expect(parseToolAnswer('{"status": "done"}')).toEqual({ status: "done" });
    expect(parseToolAnswer("approved")).toEqual({ result: "approved" });
    expect(parseToolAnswer("[1,2]")).toEqual({ result: "[1,2]" });
    expect(parseToolAnswer("{broken")).toEqual({ result: "{broken" });
  });
});
