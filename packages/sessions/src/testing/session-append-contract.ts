import {
  createEvent,
  eventToJson,
  SessionNotFoundError,
  StaleSessionError,
  type BaseSessionService,
  type EventInit,
  type Session,
} from "@agentkit/core";
import type { ContractContext, ContractTestApi } from "./contract-harness.js";
import { createFullEvent } from "./full-event.js";

export interface SessionContractOptions {
  /** Events appended by the "many events" test (default 1000). */
  manyEvents?: number;
}

/** appendEvent, stale writers, concurrency, paging and event round trips. */
export function defineSessionAppendContract(
  ctx: ContractContext<BaseSessionService>,
  { describe, it, expect }: ContractTestApi,
  options: SessionContractOptions,
): void {
  const key = (sessionId: string) => ({ appName: ctx.appName, userId: "u1", sessionId });
  const create = (sessionId = "s1", state?: Record<string, unknown>) =>
    ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId, ...(state ? { state } : {}) });
  const textEvent = (text: string, extra: Partial<EventInit> = {}) =>
    createEvent({ author: "user", content: { role: "user", parts: [{ text }] }, ...extra });

  describe("appendEvent", () => {
    it("persists the event, applies its state delta and updates the caller's session in place", async () => {
      const s = await create("s1", { before: 1 });
      const event = textEvent("hi", { actions: { stateDelta: { count: 1, before: 2 } } });
      const returned = await ctx.service.appendEvent({ session: s, event });
      expect(returned.id).toBe(event.id);
      expect(s.events.map((e) => e.id)).toEqual([event.id]);
      expect(s.state).toEqual({ before: 2, count: 1 });
      expect(s.lastUpdateTime).toBeGreaterThanOrEqual(event.timestamp);
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.state).toEqual({ before: 2, count: 1 });
      expect(stored?.events.map((e) => e.id)).toEqual([event.id]);
      expect(stored?.events[0]?.content?.parts?.[0]?.text).toBe("hi");
      expect(stored?.lastUpdateTime).toBe(s.lastUpdateTime);
    });

    it("stores a copy: changing the event afterwards does not change the store", async () => {
      const s = await create();
      const event = textEvent("original", { actions: { stateDelta: { obj: { a: 1 } } } });
      await ctx.service.appendEvent({ session: s, event });
      event.content!.parts![0]!.text = "changed";
      (event.actions.stateDelta.obj as { a: number }).a = 2;
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events[0]?.content?.parts?.[0]?.text).toBe("original");
      expect(stored?.events[0]?.actions.stateDelta).toEqual({ obj: { a: 1 } });
      expect(stored?.state.obj).toEqual({ a: 1 });
    });

    it("returns partial events untouched and stores nothing for them", async () => {
      const s = await create();
      const before = s.lastUpdateTime;
      const partial = createEvent({
        author: "agent",
        partial: true,
        content: { parts: [{ text: "chunk" }] },
        actions: { stateDelta: { x: 1 } },
      });
      const returned = await ctx.service.appendEvent({ session: s, event: partial });
      expect(returned).toBe(partial);
      expect(s.events).toEqual([]);
      expect(s.state).toEqual({});
      expect(s.lastUpdateTime).toBe(before);
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events).toEqual([]);
      expect(stored?.state).toEqual({});
    });

    it("keeps temp: keys visible to the caller for the invocation but never persists them", async () => {
      const s = await create();
      await ctx.service.appendEvent({
        session: s,
        event: createEvent({ author: "agent", actions: { stateDelta: { "temp:scratch": 42, kept: "yes" } } }),
      });
      expect(s.state["temp:scratch"]).toBe(42);
      expect(s.state.kept).toBe("yes");
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.state).toEqual({ kept: "yes" });
      expect(stored?.events[0]?.actions.stateDelta).toEqual({ kept: "yes" });
    });

    it("lets the same holder keep appending, even with equal or decreasing event timestamps", async () => {
      const s = await create();
      const fixed = s.lastUpdateTime - 50;
      for (let i = 0; i < 5; i++) {
        await ctx.service.appendEvent({
          session: s,
          event: createEvent({ author: "agent", id: `e${i}`, timestamp: fixed }),
        });
        expect((await ctx.service.getSession(key("s1")))?.lastUpdateTime).toBe(s.lastUpdateTime);
      }
      expect((await ctx.service.getSession(key("s1")))?.events.map((e) => e.id)).toEqual([
        "e0",
        "e1",
        "e2",
        "e3",
        "e4",
      ]);
    });

    it("throws SessionNotFoundError when appending to a deleted session", async () => {
      const s = await create();
      await ctx.service.deleteSession(key("s1"));
      await expect(
        ctx.service.appendEvent({ session: s, event: createEvent({ author: "user" }) }),
      ).rejects.toBeInstanceOf(SessionNotFoundError);
      expect(await ctx.service.getSession(key("s1"))).toBeUndefined();
    });
  });

  describe("stale writers", () => {
    it("rejects a writer whose copy is older than the store, storing nothing and losing nothing", async () => {
      await create("s1", { v: 0 });
      const writerA = (await ctx.service.getSession(key("s1")))!;
      const writerB = (await ctx.service.getSession(key("s1")))!;
      const fromA = textEvent("from A", { actions: { stateDelta: { v: "A" } } });
      await ctx.service.appendEvent({ session: writerA, event: fromA });
      const fromB = textEvent("from B", { actions: { stateDelta: { v: "B" } } });
      const attempt = ctx.service.appendEvent({ session: writerB, event: fromB });
      await expect(attempt).rejects.toBeInstanceOf(StaleSessionError);
      await expect(attempt).rejects.toMatchObject({ code: "STALE_SESSION", sessionId: "s1" });
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events.map((e) => e.id)).toEqual([fromA.id]);
      expect(stored?.state).toEqual({ v: "A" });
      // After reloading, B can write.
      const reloaded = (await ctx.service.getSession(key("s1")))!;
      await ctx.service.appendEvent({ session: reloaded, event: fromB });
      expect((await ctx.service.getSession(key("s1")))?.events.map((e) => e.id)).toEqual([fromA.id, fromB.id]);
    });

    it("detects a stale writer even when the newer event carries an old timestamp", async () => {
      const created = await create();
      const writerA = (await ctx.service.getSession(key("s1")))!;
      const writerB = (await ctx.service.getSession(key("s1")))!;
      await ctx.service.appendEvent({
        session: writerA,
        event: createEvent({ author: "a", timestamp: created.lastUpdateTime - 100 }),
      });
      await expect(
        ctx.service.appendEvent({ session: writerB, event: createEvent({ author: "b" }) }),
      ).rejects.toBeInstanceOf(StaleSessionError);
      expect((await ctx.service.getSession(key("s1")))?.events).toHaveLength(1);
    });
  });

  describe("concurrency", () => {
    it("keeps every event, in call order, when one holder appends concurrently", async () => {
      const s = await create();
      const events = Array.from({ length: 50 }, (_, i) =>
        createEvent({
          author: `agent${i % 3}`,
          id: `c${i}`,
          branch: `root.agent${i % 3}`,
          actions: { stateDelta: { [`k${i}`]: i, last: i } },
        }),
      );
      await Promise.all(events.map((event) => ctx.service.appendEvent({ session: s, event })));
      const ids = events.map((e) => e.id);
      expect(s.events.map((e) => e.id)).toEqual(ids);
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events.map((e) => e.id)).toEqual(ids);
      expect(stored?.state.last).toBe(49);
      expect(Object.keys(stored?.state ?? {})).toHaveLength(51);
      expect(stored?.lastUpdateTime).toBe(s.lastUpdateTime);
    });
  });

  describe("listEvents", () => {
    it("pages through events in order with a nextPageToken", async () => {
      const s = await create();
      for (let i = 0; i < 7; i++)
        await ctx.service.appendEvent({ session: s, event: createEvent({ author: "agent", id: `p${i}` }) });
      const all = await ctx.service.listEvents(key("s1"));
      expect(all.events.map((e) => e.id)).toEqual(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
      expect(all.nextPageToken).toBeUndefined();
      const seen: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = await ctx.service.listEvents({
          ...key("s1"),
          pageSize: 3,
          ...(token ? { pageToken: token } : {}),
        });
        expect(page.events.length).toBeLessThanOrEqual(3);
        seen.push(...page.events.map((e) => e.id));
        token = page.nextPageToken;
        pages++;
      } while (token && pages < 10);
      expect(seen).toEqual(all.events.map((e) => e.id));
      expect(pages).toBe(3);
      expect((await ctx.service.listEvents(key("missing"))).events).toEqual([]);
    });
  });

  describe("round trips", () => {
    it("stores and returns every event field unchanged (JSON equal)", async () => {
      const s: Session = await create();
      const event = createFullEvent(s.lastUpdateTime + 1);
      const expected = eventToJson(structuredClone(event));
      await ctx.service.appendEvent({ session: s, event });
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events).toHaveLength(1);
      expect(eventToJson(stored!.events[0]!)).toEqual(expected);
      const listed = await ctx.service.listEvents(key("s1"));
      expect(eventToJson(listed.events[0]!)).toEqual(expected);
    });

    it("keeps a long history complete and ordered", async () => {
      const count = options.manyEvents ?? 1000;
      const s = await create();
      for (let i = 0; i < count; i++) {
        await ctx.service.appendEvent({
          session: s,
          event: textEvent(`message ${i}`, { id: `m${i}`, actions: { stateDelta: { n: i } } }),
        });
      }
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.events).toHaveLength(count);
      expect(stored?.events.every((e, i) => e.id === `m${i}`)).toBe(true);
      expect(stored?.state.n).toBe(count - 1);
      const recent = await ctx.service.getSession({ ...key("s1"), config: { numRecentEvents: 3 } });
      expect(recent?.events.map((e) => e.id)).toEqual([`m${count - 3}`, `m${count - 2}`, `m${count - 1}`]);
    });
  });
}
