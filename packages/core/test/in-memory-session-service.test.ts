import { describe, expect, it } from "@jest/globals";
import {
  createEvent,
  InMemorySessionService,
  InvalidSessionKeyError,
  SessionAlreadyExistsError,
  StaleSessionError,
} from "../src/index.js";
import type { AppendEventRequest } from "../src/sessions/base-session-service.js";

// Core-level smoke checks; the full behaviour contract runs in @agentkit/sessions.
describe("InMemorySessionService", () => {
  it("creates, scopes state and rejects duplicates", async () => {
    const service = new InMemorySessionService();
    const s = await service.createSession({
      appName: "a",
      userId: "u",
      sessionId: "s1",
      state: { k: 1, "app:x": 2, "user:y": 3, "temp:z": 4 },
    });
    expect(s.state).toEqual({ k: 1, "app:x": 2, "user:y": 3 });
    await expect(service.createSession({ appName: "a", userId: "u", sessionId: "s1" })).rejects.toBeInstanceOf(
      SessionAlreadyExistsError,
    );
    const other = await service.createSession({ appName: "a", userId: "v" });
    expect(other.state).toEqual({ "app:x": 2 });
  });

  it("keeps nothing of an app or user once its last session is deleted, unless it has shared state", async () => {
    const service = new InMemorySessionService();
    // What the service holds per app and user (white-box: the leak is in these maps).
    const held = () => {
      const inside = service as unknown as {
        sessions: Map<string, unknown>;
        appState: Map<string, unknown>;
        userState: Map<string, Map<string, unknown>>;
      };
      return { sessions: inside.sessions.size, apps: inside.appState.size, users: inside.userState.size };
    };
    for (let i = 0; i < 200; i++) {
      const key = { appName: `app-${i}`, userId: `user-${i}`, sessionId: "s" };
      const session = await service.createSession(key);
      await service.appendEvent({ session, event: createEvent({ author: "user", actions: { stateDelta: { k: i } } }) });
      await service.deleteSession(key);
    }
    expect(held()).toEqual({ sessions: 0, apps: 0, users: 0 });

    // Shared state outlives the sessions that wrote it, and is seen by the next session.
    const first = await service.createSession({ appName: "kept", userId: "u", sessionId: "s1" });
    await service.appendEvent({
      session: first,
      event: createEvent({ author: "user", actions: { stateDelta: { "app:a": 1, "user:b": 2 } } }),
    });
    await service.deleteSession({ appName: "kept", userId: "u", sessionId: "s1" });
    expect(held()).toEqual({ sessions: 0, apps: 1, users: 1 });
    const next = await service.createSession({ appName: "kept", userId: "u", sessionId: "s2" });
    expect(next.state).toEqual({ "app:a": 1, "user:b": 2 });
  });

  it("gives a session made without state its own state at its first session-scoped change", async () => {
    const service = new InMemorySessionService();
    const key = { appName: "a", userId: "u" };
    const plain = await service.createSession({ ...key, sessionId: "plain", state: { "app:shared": 1 } });
    const neighbour = await service.createSession({ ...key, sessionId: "neighbour" });
    expect(plain.state).toEqual({ "app:shared": 1 });
    // A view's state is the caller's own: changing it changes nothing stored.
    plain.state.k = "local";
    const again = await service.getSession({ ...key, sessionId: "plain" });
    expect(again!.state).toEqual({ "app:shared": 1 });
    await service.appendEvent({
      session: again!,
      event: createEvent({ author: "x", actions: { stateDelta: { k: 1, "user:u1": 2, "temp:t": 3 } } }),
    });
    await service.appendEvent({
      session: again!,
      event: createEvent({ author: "x", actions: { stateDelta: { k2: 4 } } }),
    });
    expect((await service.getSession({ ...key, sessionId: "plain" }))!.state).toEqual({
      k: 1,
      k2: 4,
      "app:shared": 1,
      "user:u1": 2,
    });
    expect((await service.getSession({ ...key, sessionId: "neighbour" }))!.state).toEqual({
      "app:shared": 1,
      "user:u1": 2,
    });
    expect(neighbour.state).toEqual({ "app:shared": 1 });
  });

  it("appendEvent answers bad input with a rejected promise, never a synchronous throw", async () => {
    const service = new InMemorySessionService();
    const session = await service.createSession({ appName: "a", userId: "u", sessionId: "s" });
    const call = (request: unknown) => {
      let result: Promise<unknown> | undefined;
      expect(() => {
        result = service.appendEvent(request as AppendEventRequest);
      }).not.toThrow();
      return result!;
    };
    await expect(
      call({ session: { ...session, id: ".." }, event: createEvent({ author: "x" }) }),
    ).rejects.toBeInstanceOf(InvalidSessionKeyError);
    await expect(call(undefined)).rejects.toBeInstanceOf(TypeError);
    await expect(call({ session, event: undefined })).rejects.toBeInstanceOf(TypeError);
    const partial = createEvent({ author: "x", partial: true });
    await expect(call({ session, event: partial })).resolves.toBe(partial);
    expect(session.events).toHaveLength(0);
  });

  it("appends, keeps the holder current and rejects a stale writer", async () => {
    const service = new InMemorySessionService();
    const s = await service.createSession({ appName: "a", userId: "u", sessionId: "s1" });
    const stale = structuredClone(s);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        service.appendEvent({ session: s, event: createEvent({ author: "x", actions: { stateDelta: { n: i } } }) }),
      ),
    );
    const loaded = await service.getSession({ appName: "a", userId: "u", sessionId: "s1" });
    expect(loaded?.events).toHaveLength(20);
    expect(loaded?.state.n).toBe(19);
    expect(loaded?.lastUpdateTime).toBe(s.lastUpdateTime);
    await expect(service.appendEvent({ session: stale, event: createEvent({ author: "x" }) })).rejects.toBeInstanceOf(
      StaleSessionError,
    );
    expect((await service.getSession({ appName: "a", userId: "u", sessionId: "s1" }))?.events).toHaveLength(20);
  });
});
