import { describe, expect, it } from "@jest/globals";
import {
  createEvent,
  createTextContent,
  filterEvents,
  InvalidJsonError,
  sessionFromJson,
  sessionKeyFromJson,
  sessionKeyToJson,
  sessionToJson,
  type Session,
} from "../src/index.js";

const events = [
  createEvent({ id: "a", invocationId: "e-1", author: "user", timestamp: 100, content: createTextContent("hi") }),
  createEvent({
    id: "b",
    invocationId: "e-1",
    author: "bot",
    timestamp: 101.5,
    content: createTextContent("hello", "model"),
    actions: { stateDelta: { n: 1 } },
  }),
  createEvent({ id: "c", invocationId: "e-2", author: "user", timestamp: 103, content: createTextContent("bye") }),
];

const session: Session = {
  id: "s-1",
  appName: "app",
  userId: "ada",
  state: { n: 1, "user:lang": "en" },
  events,
  lastUpdateTime: 103.25,
};

describe("session JSON", () => {
  it("emits the wire shape (camelCase, float seconds) and reads it back", () => {
    const json = sessionToJson(session);
    expect(Object.keys(json)).toEqual(["id", "appName", "userId", "state", "events", "lastUpdateTime"]);
    expect(json.lastUpdateTime).toBe(103.25);
    expect((json.events as Record<string, unknown>[])[1]).toMatchObject({
      id: "b",
      author: "bot",
      timestamp: 101.5,
      actions: { stateDelta: { n: 1 } },
    });
    const roundTripped = sessionFromJson(JSON.parse(JSON.stringify(json)));
    expect(roundTripped).toEqual(session);
    expect(sessionFromJson(JSON.stringify(json))).toEqual(session);
  });

  it("copies state so later changes do not leak into the JSON", () => {
    const s: Session = { ...session, state: { nested: { v: 1 } } };
    const json = sessionToJson(s);
    (s.state.nested as { v: number }).v = 2;
    expect(json.state).toEqual({ nested: { v: 1 } });
  });

  it("reads snake_case, millisecond times and missing optional members", () => {
    const s = sessionFromJson({ id: "s", app_name: "app", user_id: "u", last_update_time: 1795338258224 });
    expect(s).toEqual({ id: "s", appName: "app", userId: "u", state: {}, events: [], lastUpdateTime: 1795338258.224 });
    expect(sessionFromJson({ id: "s", appName: "a", userId: "u" }).lastUpdateTime).toBe(0);
  });

  it("rejects malformed sessions with InvalidJsonError", () => {
    expect(() => sessionFromJson(null)).toThrow(InvalidJsonError);
    expect(() => sessionFromJson({ appName: "a", userId: "u" })).toThrow(/appName, userId and id/);
    expect(() => sessionFromJson({ id: "s", appName: "a", userId: "u", state: [] })).toThrow(/state must be an object/);
    expect(() => sessionFromJson({ id: "s", appName: "a", userId: "u", events: {} })).toThrow(
      /events must be an array/,
    );
    expect(() => sessionFromJson({ id: "s", appName: "a", userId: "u", lastUpdateTime: "later" })).toThrow(
      /lastUpdateTime/,
    );
  });
});

describe("session keys", () => {
  it("round-trip through JSON and accept snake_case and sessionId", () => {
    const key = { appName: "app", userId: "ada", id: "s-1" };
    expect(JSON.parse(sessionKeyToJson(key))).toEqual(key);
    expect(sessionKeyFromJson(sessionKeyToJson(key))).toEqual(key);
    expect(sessionKeyFromJson({ app_name: "app", user_id: "ada", session_id: "s-1" })).toEqual(key);
    expect(sessionKeyFromJson({ appName: "app", userId: "ada", sessionId: "s-1" })).toEqual(key);
    // Only key fields are kept.
    expect(sessionKeyToJson({ ...key, extra: 1 } as typeof key)).toBe('{"appName":"app","userId":"ada","id":"s-1"}');
  });

  it("rejects incomplete keys", () => {
    expect(() => sessionKeyFromJson({ appName: "app", userId: "ada" })).toThrow(InvalidJsonError);
    expect(() => sessionKeyFromJson("[]")).toThrow(InvalidJsonError);
    expect(() => sessionKeyFromJson({ appName: 1, userId: "u", id: "s" })).toThrow(InvalidJsonError);
  });
});

describe("filterEvents", () => {
  const ids = (list: typeof events) => list.map((e) => e.id);

  it("returns everything without a config", () => {
    expect(filterEvents(events, undefined)).toBe(events);
    expect(ids(filterEvents(events, {}))).toEqual(["a", "b", "c"]);
  });

  it("keeps events at or after a timestamp (seconds or Date)", () => {
    expect(ids(filterEvents(events, { afterTimestamp: 101.5 }))).toEqual(["b", "c"]);
    expect(ids(filterEvents(events, { afterTimestamp: new Date(102_000) }))).toEqual(["c"]);
    expect(ids(filterEvents(events, { afterTimestamp: 200 }))).toEqual([]);
  });

  it("keeps the most recent N events, combined with the timestamp filter", () => {
    expect(ids(filterEvents(events, { numRecentEvents: 2 }))).toEqual(["b", "c"]);
    expect(ids(filterEvents(events, { numRecentEvents: 10 }))).toEqual(["a", "b", "c"]);
    expect(ids(filterEvents(events, { numRecentEvents: 0 }))).toEqual([]);
    expect(ids(filterEvents(events, { numRecentEvents: 1.7 }))).toEqual(["c"]);
    expect(ids(filterEvents(events, { afterTimestamp: 101, numRecentEvents: 5 }))).toEqual(["b", "c"]);
  });
});
