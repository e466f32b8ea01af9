import {
  createEvent,
  InvalidSessionKeyError,
  nowSeconds,
  SessionAlreadyExistsError,
  type BaseSessionService,
} from "@agentkit/core";
import type { ContractContext, ContractTestApi } from "./contract-harness.js";

/** create / get / list / delete and state scoping. */
export function defineSessionLifecycleContract(
  ctx: ContractContext<BaseSessionService>,
  { describe, it, expect }: ContractTestApi,
): void {
  const key = (sessionId: string, userId = "u1") => ({ appName: ctx.appName, userId, sessionId });

  describe("createSession", () => {
    it("creates a session with the given id, no events and lastUpdateTime in float seconds", async () => {
      const before = nowSeconds();
      const s = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      const after = nowSeconds();
      expect(s).toMatchObject({ id: "s1", appName: ctx.appName, userId: "u1", events: [], state: {} });
      expect(s.lastUpdateTime).toBeGreaterThanOrEqual(before - 1);
      expect(s.lastUpdateTime).toBeLessThanOrEqual(after + 1);
      expect(await ctx.service.getSession(key("s1"))).toMatchObject({ id: "s1", events: [], state: {} });
    });

    it("generates a unique id when none is given", async () => {
      const a = await ctx.service.createSession({ appName: ctx.appName, userId: "u1" });
      const b = await ctx.service.createSession({ appName: ctx.appName, userId: "u1" });
      expect(typeof a.id).toBe("string");
      expect(a.id.length).toBeGreaterThan(0);
      expect(a.id).not.toBe(b.id);
      expect((await ctx.service.getSession(key(a.id)))?.id).toBe(a.id);
    });

    it("rejects a duplicate id with SessionAlreadyExistsError and keeps the original", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "dup", state: { v: 1 } });
      const attempt = ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "dup",
        state: { v: 2 },
      });
      await expect(attempt).rejects.toBeInstanceOf(SessionAlreadyExistsError);
      await expect(attempt).rejects.toMatchObject({ code: "SESSION_ALREADY_EXISTS" });
      expect((await ctx.service.getSession(key("dup")))?.state).toEqual({ v: 1 });
    });

    it("refuses invalid keys with InvalidSessionKeyError (INVALID_SESSION_KEY) before touching the store", async () => {
      for (const bad of ["", "..", "a\u0000b", "x".repeat(129), "\ud800", "/abs"]) {
        const refusals = [
          () => ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: bad || "\u0000" }),
          () => ctx.service.createSession({ appName: ctx.appName, userId: bad }),
          () => ctx.service.getSession({ appName: bad, userId: "u1", sessionId: "s1" }),
          () => ctx.service.getSession(key(bad || "\t")),
          () => ctx.service.listSessions({ appName: ctx.appName, userId: bad }),
          () => ctx.service.deleteSession(key(bad || "\r")),
        ];
        for (const refusal of refusals) {
          await expect(refusal()).rejects.toBeInstanceOf(InvalidSessionKeyError);
          await expect(refusal()).rejects.toMatchObject({ code: "INVALID_SESSION_KEY" });
        }
      }
      expect((await ctx.service.listSessions({ appName: ctx.appName, userId: "u1" })).sessions).toEqual([]);
    });

    it("stores ids that are Object.prototype names like any other id", async () => {
      for (const id of ["__proto__", "constructor", "hasOwnProperty"]) {
        await ctx.service.createSession({ appName: ctx.appName, userId: id, sessionId: id, state: { id } });
        expect(await ctx.service.getSession(key(id, id))).toMatchObject({ id, userId: id, state: { id } });
        expect(
          (await ctx.service.listSessions({ appName: ctx.appName, userId: id })).sessions.map((s) => s.id),
        ).toEqual([id]);
        expect(await ctx.service.getSession(key(id))).toBeUndefined();
      }
    });

    it("treats the same id under another user as a different session", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "same", state: { who: "u1" } });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "same", state: { who: "u2" } });
      expect((await ctx.service.getSession(key("same", "u1")))?.state).toEqual({ who: "u1" });
      expect((await ctx.service.getSession(key("same", "u2")))?.state).toEqual({ who: "u2" });
    });
  });

  describe("state scoping", () => {
    it("stores app: and user: keys as shared state, drops temp: keys and merges the view", async () => {
      const s = await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s1",
        state: { own: 1, "app:flag": true, "user:name": "Ada", "temp:scratch": "x", nested: { a: [1, 2] } },
      });
      const expected = { own: 1, "app:flag": true, "user:name": "Ada", nested: { a: [1, 2] } };
      expect(s.state).toEqual(expected);
      expect((await ctx.service.getSession(key("s1")))?.state).toEqual(expected);
    });

    it("shares app state with every user and user state with that user's sessions only", async () => {
      await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s1",
        state: { own: 1, "app:a": 1, "user:u": "one" },
      });
      const sameUser = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s2" });
      const otherUser = await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "s3" });
      const otherApp = await ctx.service.createSession({
        appName: `${ctx.appName}-other`,
        userId: "u1",
        sessionId: "s4",
      });
      expect(sameUser.state).toEqual({ "app:a": 1, "user:u": "one" });
      expect(otherUser.state).toEqual({ "app:a": 1 });
      expect(otherApp.state).toEqual({});
      await ctx.service.deleteSession({ appName: `${ctx.appName}-other`, userId: "u1", sessionId: "s4" });
    });

    it("lets a later session overwrite shared state, visible to the earlier ones", async () => {
      await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s1",
        state: { "app:a": 1, "user:u": 1 },
      });
      await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s2",
        state: { "app:a": 2, "user:u": 2 },
      });
      expect((await ctx.service.getSession(key("s1")))?.state).toEqual({ "app:a": 2, "user:u": 2 });
    });

    it("makes shared state written by an appended event visible to other sessions and users", async () => {
      const s1 = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s2" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "s3" });
      const event = createEvent({
        author: "agent",
        actions: { stateDelta: { "app:count": 3, "user:pref": "dark", own: "s1" } },
      });
      await ctx.service.appendEvent({ session: s1, event });
      expect((await ctx.service.getSession(key("s2")))?.state).toEqual({ "app:count": 3, "user:pref": "dark" });
      expect((await ctx.service.getSession(key("s3", "u2")))?.state).toEqual({ "app:count": 3 });
      const listed = await ctx.service.listSessions({ appName: ctx.appName, userId: "u1" });
      expect(listed.sessions.find((x) => x.id === "s2")?.state).toEqual({ "app:count": 3, "user:pref": "dark" });
    });

    it("keeps __proto__ and inherited names (constructor, toString) as ordinary keys in every scope", async () => {
      // JSON bodies carry such keys as own properties; they must round-trip as data, never
      // re-parent an object or read as Object.prototype's members.
      const initial = JSON.parse(
        '{"__proto__": {"polluted": 1}, "constructor": "c", "app:__proto__": "a", "user:toString": "t"}',
      ) as Record<string, unknown>;
      const s = await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "proto",
        state: initial,
      });
      const ownValue = (state: Record<string, unknown>, k: string) => Object.getOwnPropertyDescriptor(state, k)?.value;
      const check = (state: Record<string, unknown>, expected: Record<string, unknown>) => {
        expect(Object.keys(state).sort()).toEqual(Object.keys(expected).sort());
        for (const [k, v] of Object.entries(expected)) expect(ownValue(state, k)).toEqual(v);
        expect((state as { polluted?: unknown }).polluted).toBeUndefined();
      };
      check(s.state, { ["__proto__"]: { polluted: 1 }, constructor: "c", "app:__proto__": "a", "user:toString": "t" });
      await ctx.service.appendEvent({
        session: s,
        event: createEvent({
          invocationId: "e-1",
          author: "user",
          actions: { stateDelta: JSON.parse('{"__proto__": {"x": 2}, "app:__proto__": "b", "user:constructor": 3}') },
        }),
      });
      const after = {
        ["__proto__"]: { x: 2 },
        constructor: "c",
        "app:__proto__": "b",
        "user:toString": "t",
        "user:constructor": 3,
      };
      check((await ctx.service.getSession(key("proto")))!.state, after);
      const listed = (await ctx.service.listSessions({ appName: ctx.appName, userId: "u1" })).sessions;
      check(listed.find((x) => x.id === "proto")!.state, after);
      const sibling = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "proto-2" });
      check(sibling.state, { "app:__proto__": "b", "user:toString": "t", "user:constructor": 3 });
      expect(({} as { x?: unknown; polluted?: unknown }).x).toBeUndefined();
    });
  });

  describe("getSession", () => {
    it("returns undefined for a missing session, another user's or another app's", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "mine" });
      expect(await ctx.service.getSession(key("missing"))).toBeUndefined();
      expect(await ctx.service.getSession(key("mine", "u2"))).toBeUndefined();
      expect(
        await ctx.service.getSession({ appName: `${ctx.appName}-other`, userId: "u1", sessionId: "mine" }),
      ).toBeUndefined();
    });

    it("returns copies or frozen snapshots: changing a returned session, its nested state or the creation input does not change the store", async () => {
      const input = { list: [1], "user:obj": { deep: true } };
      const created = await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s1",
        state: input,
      });
      input.list.push(2);
      input["user:obj"].deep = false;
      created.state.added = true;
      (created.state.list as number[]).push(3);
      (created.state["user:obj"] as { deep: boolean }).deep = false;
      await ctx.service.appendEvent({
        session: created,
        event: createEvent({ author: "user", content: { role: "user", parts: [{ text: "hi" }] } }),
      });
      const first = await ctx.service.getSession(key("s1"));
      (first!.state["user:obj"] as { deep: boolean }).deep = false;
      (first!.state.list as number[]).push(4);
      first!.state.list = "changed";
      // Returned events may be frozen snapshots (in-memory) or fresh copies (databases): either
      // way, an attempt to change one must not reach the store.
      try {
        first!.events[0]!.content!.parts![0]!.text = "changed";
      } catch (error) {
        expect(error).toBeInstanceOf(TypeError);
      }
      first!.events.push(createEvent({ author: "x" }));
      const second = await ctx.service.getSession(key("s1"));
      expect(second?.state).toEqual({ list: [1], "user:obj": { deep: true } });
      expect(second?.events).toHaveLength(1);
      expect(second?.events[0]?.content?.parts?.[0]?.text).toBe("hi");
    });

    it("filters events by afterTimestamp (number or Date, inclusive) and numRecentEvents", async () => {
      const s = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      const base = s.lastUpdateTime + 10;
      for (let i = 0; i < 5; i++) {
        await ctx.service.appendEvent({
          session: s,
          event: createEvent({ author: "agent", id: `e${i}`, timestamp: base + i }),
        });
      }
      const ids = (events: { id: string }[] | undefined) => events?.map((e) => e.id);
      expect(
        ids((await ctx.service.getSession({ ...key("s1"), config: { afterTimestamp: base + 2 } }))?.events),
      ).toEqual(["e2", "e3", "e4"]);
      const asDate = new Date((base + 3) * 1000);
      expect(ids((await ctx.service.getSession({ ...key("s1"), config: { afterTimestamp: asDate } }))?.events)).toEqual(
        ["e3", "e4"],
      );
      expect(ids((await ctx.service.getSession({ ...key("s1"), config: { numRecentEvents: 2 } }))?.events)).toEqual([
        "e3",
        "e4",
      ]);
      expect(ids((await ctx.service.getSession({ ...key("s1"), config: { numRecentEvents: 0 } }))?.events)).toEqual([]);
      expect(
        ids((await ctx.service.getSession({ ...key("s1"), config: { numRecentEvents: 10 } }))?.events),
      ).toHaveLength(5);
      const both = await ctx.service.getSession({
        ...key("s1"),
        config: { afterTimestamp: base + 1, numRecentEvents: 2 },
      });
      expect(ids(both?.events)).toEqual(["e3", "e4"]);
    });
  });

  describe("listSessions", () => {
    it("lists one user's sessions with merged state and no events", async () => {
      const s1 = await ctx.service.createSession({
        appName: ctx.appName,
        userId: "u1",
        sessionId: "s1",
        state: { own: 1, "user:u": 1, "app:a": 1 },
      });
      await ctx.service.appendEvent({
        session: s1,
        event: createEvent({ author: "user", content: { parts: [{ text: "hello" }] } }),
      });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s2" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "s3" });
      const { sessions } = await ctx.service.listSessions({ appName: ctx.appName, userId: "u1" });
      expect(sessions.map((s) => s.id).sort()).toEqual(["s1", "s2"]);
      for (const s of sessions) {
        expect(s.events).toEqual([]);
        expect(s.appName).toBe(ctx.appName);
        expect(s.userId).toBe("u1");
      }
      const one = sessions.find((s) => s.id === "s1")!;
      expect(one.state).toEqual({ own: 1, "user:u": 1, "app:a": 1 });
      expect(one.lastUpdateTime).toBe(s1.lastUpdateTime);
    });

    it("lists every user's sessions of the app when userId is omitted, and nothing of other apps", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "s2" });
      await ctx.service.createSession({ appName: `${ctx.appName}-other`, userId: "u1", sessionId: "s3" });
      const { sessions } = await ctx.service.listSessions({ appName: ctx.appName });
      expect(sessions.map((s) => `${s.userId}/${s.id}`).sort()).toEqual(["u1/s1", "u2/s2"]);
      expect((await ctx.service.listSessions({ appName: `${ctx.appName}-none` })).sessions).toEqual([]);
      expect((await ctx.service.listSessions({ appName: ctx.appName, userId: "nobody" })).sessions).toEqual([]);
      await ctx.service.deleteSession({ appName: `${ctx.appName}-other`, userId: "u1", sessionId: "s3" });
    });
  });

  describe("listSessions order and paging", () => {
    const list = (request: { userId?: string; pageSize?: number; pageToken?: string } = { userId: "u1" }) =>
      ctx.service.listSessions({ appName: ctx.appName, ...request });
    const ids = (sessions: { userId: string; id: string }[]) => sessions.map((s) => `${s.userId}/${s.id}`);

    it("lists the most recently updated session first", async () => {
      const s1 = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s2" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s3" });
      expect(ids((await list()).sessions)).toEqual(["u1/s3", "u1/s2", "u1/s1"]);
      await ctx.service.appendEvent({ session: s1, event: createEvent({ author: "user" }) });
      const { sessions, nextPageToken } = await list();
      expect(ids(sessions)).toEqual(["u1/s1", "u1/s3", "u1/s2"]);
      expect(nextPageToken).toBeUndefined();
    });

    it("pages with pageSize and pageToken: every session once, in list order, no token after the last", async () => {
      for (const [userId, sessionId] of [
        ["u1", "a"],
        ["u2", "b"],
        ["u1", "c"],
        ["u2", "d"],
        ["u1", "e"],
      ] as const) {
        await ctx.service.createSession({ appName: ctx.appName, userId, sessionId, state: { n: sessionId } });
      }
      const whole = await list({});
      expect(ids(whole.sessions)).toEqual(["u1/e", "u2/d", "u1/c", "u2/b", "u1/a"]);
      const pages: string[][] = [];
      let token: string | undefined;
      do {
        const page = await list({ pageSize: 2, ...(token ? { pageToken: token } : {}) });
        pages.push(ids(page.sessions));
        for (const s of page.sessions) expect(s.events).toEqual([]);
        token = page.nextPageToken;
      } while (token);
      expect(pages).toEqual([["u1/e", "u2/d"], ["u1/c", "u2/b"], ["u1/a"]]);
      const first = await list({ userId: "u1", pageSize: 2 });
      expect(ids(first.sessions)).toEqual(["u1/e", "u1/c"]);
      expect(first.sessions[0]!.state).toEqual({ n: "e" });
      const rest = await list({ userId: "u1", pageSize: 2, pageToken: first.nextPageToken! });
      expect(ids(rest.sessions)).toEqual(["u1/a"]);
      expect(rest.nextPageToken).toBeUndefined();
      // An exact fit: no token, since no page follows.
      expect((await list({ userId: "u2", pageSize: 2 })).nextPageToken).toBeUndefined();
    });

    it("continues after a session deleted between pages", async () => {
      for (const id of ["a", "b", "c"])
        await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: id });
      const first = await list({ userId: "u1", pageSize: 1 });
      expect(ids(first.sessions)).toEqual(["u1/c"]);
      await ctx.service.deleteSession(key("c"));
      const next = await list({ userId: "u1", pageSize: 5, pageToken: first.nextPageToken! });
      expect(ids(next.sessions)).toEqual(["u1/b", "u1/a"]);
    });

    it("refuses a pageSize that is not a positive integer and a pageToken it did not make", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      for (const pageSize of [0, -1, 1.5, Number.NaN]) {
        await expect(list({ userId: "u1", pageSize })).rejects.toMatchObject({ code: "INVALID_SESSION_REQUEST" });
      }
      for (const pageToken of ["not-a-token", Buffer.from('{"a":1}').toString("base64url")]) {
        await expect(list({ userId: "u1", pageToken })).rejects.toMatchObject({ code: "INVALID_SESSION_REQUEST" });
      }
    });
  });

  describe("deleteSession", () => {
    it("removes the session and its events and leaves the others", async () => {
      const s1 = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.appendEvent({ session: s1, event: createEvent({ author: "user" }) });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s2" });
      await ctx.service.deleteSession(key("s1"));
      expect(await ctx.service.getSession(key("s1"))).toBeUndefined();
      expect(
        (await ctx.service.listSessions({ appName: ctx.appName, userId: "u1" })).sessions.map((s) => s.id),
      ).toEqual(["s2"]);
      expect((await ctx.service.listEvents(key("s1"))).events).toEqual([]);
      const again = await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      expect(again.events).toEqual([]);
      expect((await ctx.service.getSession(key("s1")))?.events).toEqual([]);
    });

    it("is idempotent and ignores missing sessions", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.deleteSession(key("s1"));
      await expect(ctx.service.deleteSession(key("s1"))).resolves.toBeUndefined();
      await expect(ctx.service.deleteSession(key("never"))).resolves.toBeUndefined();
    });

    it("does not delete another user's session with the same id", async () => {
      await ctx.service.createSession({ appName: ctx.appName, userId: "u1", sessionId: "s1" });
      await ctx.service.createSession({ appName: ctx.appName, userId: "u2", sessionId: "s1" });
      await ctx.service.deleteSession(key("s1", "u2"));
      expect(await ctx.service.getSession(key("s1", "u1"))).toBeDefined();
    });
  });
}
