// The history's function responses as a request carries them: each right after the event of its
// call, the responses to one event's calls merged into one event (ADK's rearrangement), whatever
// came between them in the session.
import { describe, expect, it } from "@jest/globals";
import { createEvent, type Event, type Part } from "../../src/index.js";
import {
  rearrangeAsyncFunctionResponsesInHistory,
  rearrangeLatestFunctionResponse,
} from "../../src/flows/rearrange-function-responses.js";

const event = (id: string, role: "user" | "model", parts: Part[]): Event =>
  createEvent({ id, invocationId: "i1", author: role === "user" ? "user" : "a", content: { role, parts } });
const call = (id: string) => ({ functionCall: { id, name: "f", args: { id } } });
const answer = (id: string) => ({ functionResponse: { id, name: "f", response: { ok: id } } });
const ids = (events: Event[]) => events.map((e) => e.id);

describe("rearrangeAsyncFunctionResponsesInHistory", () => {
  it("puts a late response right after its call", () => {
    const history = [
      event("u", "user", [{ text: "go" }]),
      event("c", "model", [call("c1")]),
      event("t", "model", [{ text: "working on it" }]),
      event("r", "user", [answer("c1")]),
    ];
    expect(ids(rearrangeAsyncFunctionResponsesInHistory(history))).toEqual(["u", "c", "r", "t"]);
  });

  it("merges the responses to one event's parallel calls, arriving apart, into one event in call order", () => {
    const history = [
      event("u", "user", [{ text: "go" }]),
      event("c", "model", [call("c1"), call("c2")]),
      event("r1", "user", [answer("c1")]),
      event("t", "model", [{ text: "one is back" }]),
      event("r2", "user", [answer("c2")]),
    ];
    const out = rearrangeAsyncFunctionResponsesInHistory(history);
    expect(ids(out)).toEqual(["u", "c", "r1", "t"]);
    expect(out[2]!.content).toEqual({ role: "user", parts: [answer("c1"), answer("c2")] });
    // The history's own events are left as they were.
    expect(history[2]!.content!.parts).toEqual([answer("c1")]);
  });

  it("drops a response whose call is not in the history, and keeps a call without a response", () => {
    const history = [event("c", "model", [call("c1")]), event("r", "user", [answer("other")])];
    expect(ids(rearrangeAsyncFunctionResponsesInHistory(history))).toEqual(["c"]);
  });
});

describe("rearrangeLatestFunctionResponse", () => {
  it("leaves a response that follows its call as it is", () => {
    const history = [event("c", "model", [call("c1")]), event("r", "user", [answer("c1")])];
    expect(rearrangeLatestFunctionResponse(history, history)).toBe(history);
  });

  it("moves a late answer next to its call and merges it with the earlier responses to that call's event", () => {
    const history = [
      event("u", "user", [{ text: "go" }]),
      event("c", "model", [call("c1"), call("c2")]),
      event("r1", "user", [answer("c1")]),
      event("t", "model", [{ text: "waiting for c2" }]),
      event("r2", "user", [answer("c2")]),
    ];
    const out = rearrangeLatestFunctionResponse(history, history);
    expect(ids(out)).toEqual(["u", "c", "r1"]);
    expect(out[2]!.content!.parts).toEqual([answer("c1"), answer("c2")]);
  });
});
