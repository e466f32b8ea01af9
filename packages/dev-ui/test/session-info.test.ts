import { describe, expect, it } from "@jest/globals";
import {
  displayName,
  formatTime,
  lastUpdateMs,
  nameFromMessage,
  renameDelta,
  sessionsFromList,
  sortSessions,
  SESSION_METADATA_KEY,
} from "../src/ui/lib/session-info.js";
import { readUrlState, writeUrlState } from "../src/ui/lib/url-state.js";

describe("sessions", () => {
  it("reads lastUpdateTime as float seconds (and tolerates milliseconds)", () => {
    expect(lastUpdateMs(1795338258.224)).toBeCloseTo(1795338258224, 0);
    expect(lastUpdateMs(1795338258224)).toBe(1795338258224);
  });

  it("sorts most recent first", () => {
    const sorted = sortSessions([
      { id: "old", lastUpdateTime: 1700000000.5 },
      { id: "new", lastUpdateTime: 1700000100.25 },
      { id: "mid", lastUpdateTime: 1700000050 },
    ]);
    expect(sorted.map((s) => s.id)).toEqual(["new", "mid", "old"]);
  });

  it("accepts both list forms (array and JS 2.0's page object)", () => {
    const s = { id: "a", appName: "x", userId: "u", state: {}, events: [], lastUpdateTime: 1 };
    expect(sessionsFromList([s])).toEqual([s]);
    expect(sessionsFromList({ sessions: [s], page: 1 })).toEqual([s]);
    expect(sessionsFromList({ detail: "nope" })).toEqual([]);
  });

  it("names sessions from __session_metadata__.displayName, else the id's start", () => {
    expect(displayName({ id: "0123456789", state: { [SESSION_METADATA_KEY]: { displayName: "Trip plan" } } })).toBe(
      "Trip plan",
    );
    expect(displayName({ id: "0123456789", state: {} })).toBe("01234567");
  });

  it("renames through a state delta that keeps other metadata", () => {
    expect(renameDelta({ [SESSION_METADATA_KEY]: { displayName: "a", pinned: true }, other: 1 }, "b")).toEqual({
      [SESSION_METADATA_KEY]: { displayName: "b", pinned: true },
    });
  });

  it("cuts a first message to 47 characters plus ... when longer than 50", () => {
    expect(nameFromMessage("  short   message ")).toBe("short message");
    expect(nameFromMessage("x".repeat(50))).toBe("x".repeat(50));
    expect(nameFromMessage("y".repeat(51))).toBe(`${"y".repeat(47)}...`);
  });

  it("formats today's times without the date and older ones with it", () => {
    const now = new Date(2026, 10, 25, 15, 0, 0).getTime();
    const today = formatTime(new Date(2026, 10, 25, 9, 5, 7).getTime(), now);
    expect(today).toMatch(/0?9.05.07/);
    const earlier = formatTime(new Date(2026, 10, 3, 9, 5).getTime(), now);
    expect(earlier).toMatch(/3/);
    expect(earlier).not.toBe(today);
    expect(formatTime(new Date(2024, 0, 1).getTime(), now)).toMatch(/2024/);
  });
});

describe("URL state", () => {
  it("round-trips app, user, session and tab and keeps other parameters", () => {
    const search = writeUrlState(
      { app: "weather", userId: "ana", session: "s-1", tab: "trace" },
      "?tests=true&session=old",
    );
    const params = new URLSearchParams(search);
    expect(params.get("tests")).toBe("true");
    expect(readUrlState(search)).toEqual({ app: "weather", userId: "ana", session: "s-1", tab: "trace" });
  });

  it("defaults the user and omits what is not set", () => {
    expect(readUrlState("")).toEqual({ userId: "user" });
    expect(readUrlState("?app=a&session=")).toEqual({ app: "a", userId: "user" });
    expect(writeUrlState({ userId: "user" }, "?app=a&session=s")).toBe("?userId=user");
  });
});
