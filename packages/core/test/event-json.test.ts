import { describe, expect, it } from "@jest/globals";
import {
  createEvent,
  eventFromJson,
  eventToJson,
  getFunctionCalls,
  getFunctionResponses,
  hasTrailingCodeExecutionResult,
  InvalidJsonError,
  isFinalResponse,
  type Event,
} from "../src/index.js";

describe("event JSON", () => {
  it("emits the wire shape: four action maps, float seconds, no undefined members", () => {
    const before = Date.now() / 1000;
    const event = createEvent({
      invocationId: "e-1",
      author: "agent",
      content: { role: "model", parts: [{ text: "hi" }] },
    });
    const after = Date.now() / 1000;
    const json = eventToJson(event);
    expect(json.actions).toEqual({
      stateDelta: {},
      artifactDelta: {},
      requestedAuthConfigs: {},
      requestedToolConfirmations: {},
    });
    expect(typeof json.timestamp).toBe("number");
    // The creation time in seconds (nowSeconds may run ahead by 1 µs per event of a burst).
    expect(json.timestamp as number).toBeGreaterThanOrEqual(before);
    expect(json.timestamp as number).toBeLessThanOrEqual(after + 1);
    expect("branch" in json).toBe(false);
    expect("longRunningToolIds" in json).toBe(false);
    expect(eventFromJson(JSON.parse(JSON.stringify(json)))).toEqual(event);
  });

  it("reads snake_case, millisecond timestamps and URL-safe base64", () => {
    const event = eventFromJson({
      id: "x",
      invocation_id: "e-2",
      author: "user",
      timestamp: 1795338258224,
      content: { role: "user", parts: [{ inline_data: { mime_type: "text/plain", data: "aGk_-w" } }] },
      actions: { state_delta: { a: 1 }, skip_summarization: true },
      long_running_tool_ids: ["c1"],
    });
    expect(event.invocationId).toBe("e-2");
    expect(event.timestamp).toBeCloseTo(1795338258.224, 3);
    expect(event.content?.parts?.[0]?.inlineData).toEqual({ mimeType: "text/plain", data: "aGk/+w==" });
    expect(event.actions.stateDelta).toEqual({ a: 1 });
    expect(event.actions.skipSummarization).toBe(true);
    expect(event.longRunningToolIds).toEqual(["c1"]);
  });

  it("keeps user data (function args) untouched by key conversion", () => {
    const event = eventFromJson({
      author: "a",
      content: { parts: [{ function_call: { id: "1", name: "f", args: { snake_key: 1 } } }] },
    });
    expect(getFunctionCalls(event)).toEqual([{ id: "1", name: "f", args: { snake_key: 1 } }]);
  });

  it("rejects malformed events with a typed error", () => {
    expect(() => eventFromJson({})).toThrow(InvalidJsonError);
    expect(() => eventFromJson("{nope")).toThrow(InvalidJsonError);
    expect(() => eventFromJson({ author: "a", timestamp: "soon" })).toThrow(/timestamp/);
    expect(() => eventFromJson({ author: "a", content: { parts: "x" } })).toThrow(/parts/);
  });
});

describe("derived event values", () => {
  const call = createEvent({
    author: "a",
    content: { role: "model", parts: [{ functionCall: { id: "1", name: "f", args: {} } }] },
  });
  const response = createEvent({
    author: "a",
    content: { role: "user", parts: [{ functionResponse: { id: "1", name: "f", response: {} } }] },
  });
  const text = createEvent({ author: "a", content: { role: "model", parts: [{ text: "done" }] } });

  it("finds calls and responses", () => {
    expect(getFunctionCalls(call).map((c) => c.name)).toEqual(["f"]);
    expect(getFunctionResponses(response).map((r) => r.id)).toEqual(["1"]);
    expect(getFunctionResponses(call)).toEqual([]);
  });

  it("computes isFinalResponse", () => {
    expect(isFinalResponse(text)).toBe(true);
    expect(isFinalResponse(call)).toBe(false);
    expect(isFinalResponse(response)).toBe(false);
    expect(isFinalResponse({ ...text, partial: true })).toBe(false);
    expect(isFinalResponse({ ...call, longRunningToolIds: ["1"] })).toBe(true);
    expect(isFinalResponse(createEvent({ ...response, actions: { skipSummarization: true } }))).toBe(true);
  });

  it("reads every key as an own key: no prototype, no inherited name, no mangled underscore", () => {
    // JSON.parse makes `__proto__` an ordinary own key; a copy by assignment would re-parent.
    const raw = JSON.parse(
      '{"author":"a","__proto__":{"partial":true},"_meta":1,"actions":{"__proto__":{"escalate":true}},' +
        '"content":{"parts":[{"text":"t","to_string":"x","__proto__":{"functionCall":{"name":"f"}}}]}}',
    ) as Record<string, unknown>;
    const event = eventFromJson(raw);
    expect(Object.getPrototypeOf(event)).toBe(Object.prototype);
    expect(event.partial).toBeUndefined();
    expect(event.actions.escalate).toBeUndefined();
    expect(Object.getPrototypeOf(event.actions)).toBe(Object.prototype);
    const part = event.content!.parts![0]!;
    expect(Object.getPrototypeOf(part)).toBe(Object.prototype);
    expect(part.functionCall).toBeUndefined();
    expect(getFunctionCalls(event)).toEqual([]);
    // Kept as given: `_meta` is not a snake_case spelling, `__proto__` an own key, and a name that
    // only an inherited member had (`toString`) is not taken for one already read.
    expect(Object.keys(event)).toEqual(expect.arrayContaining(["__proto__", "_meta"]));
    expect(Object.keys(part)).toEqual(["text", "toString", "__proto__"]);
    expect((part as Record<string, unknown>).toString).toBe("x");
    // A camelCase key wins over the snake_case spelling of the same field, in either order.
    expect(eventFromJson({ author: "a", invocation_id: "snake", invocationId: "camel" }).invocationId).toBe("camel");
    expect(eventFromJson({ author: "a", invocationId: "camel", invocation_id: "snake" }).invocationId).toBe("camel");
  });

  it("detects a trailing code execution result", () => {
    const e = createEvent({
      author: "a",
      content: { parts: [{ text: "x" }, { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } }] },
    });
    expect(hasTrailingCodeExecutionResult(e)).toBe(true);
    expect(isFinalResponse(e)).toBe(false);
    expect(hasTrailingCodeExecutionResult(text)).toBe(false);
  });
});

describe("one-pass wire text", () => {
  it("eventToJsonText and sessionToJsonText equal JSON.stringify of the wire objects", async () => {
    const { createEvent, createEventActions, eventToJson, eventToJsonText, sessionToJson, sessionToJsonText } =
      await import("../src/index.js");
    const events = [
      createEvent({ author: "user", content: { role: "user", parts: [{ text: "hi" }] } }),
      createEvent({
        author: "a",
        content: {
          role: "model",
          parts: [{ functionCall: { id: "c1", name: "t", args: { x: [1, undefined, { y: undefined }] } } }],
        },
        longRunningToolIds: ["c1"],
        actions: { stateDelta: { k: 1 }, transferToAgent: "b" },
        usageMetadata: { totalTokenCount: 3 },
      }),
      { ...createEvent({ author: "a" }), longRunningToolIds: [] as string[], partial: undefined },
      JSON.parse('{"id":"e","invocationId":"i","author":"a","timestamp":1.5,"actions":{"stateDelta":{"__proto__":1}}}'),
      // The four maps present but not first, or one of them null: the key order and the nulls of the wire form.
      {
        ...createEvent({ author: "a" }),
        actions: {
          escalate: true,
          requestedToolConfirmations: {},
          stateDelta: { k: 2 },
          requestedAuthConfigs: {},
          artifactDelta: { f: 1 },
        },
      },
      { ...createEvent({ author: "a" }), actions: { ...createEventActions(), artifactDelta: null } },
      { ...createEvent({ author: "a" }), actions: undefined },
      { ...createEvent({ author: "a" }), longRunningToolIds: ["c9"] },
    ] as Event[];
    for (const event of events) expect(eventToJsonText(event)).toBe(JSON.stringify(eventToJson(event)));
    const session = {
      id: "s",
      appName: "app",
      userId: "u",
      state: { a: 1, "app:b": { c: [2] } },
      events,
      lastUpdateTime: 1234.5,
    };
    expect(sessionToJsonText(session)).toBe(JSON.stringify(sessionToJson(session)));
    expect(sessionToJsonText({ ...session, events: [] })).toBe(
      JSON.stringify(sessionToJson({ ...session, events: [] })),
    );
  });
});
