import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { createEvent, SessionError } from "@agentkit/core";
import { MongoClient } from "mongodb";
import { APP_STATE_COLLECTION, MongoSessionService, USER_STATE_COLLECTION } from "../src/mongodb/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";

// `app:` and `user:` keys are shared by sessions. A half-finished append completed later (by a
// reader rolling it forward, or by its own slow writer) must not overwrite a newer value that
// another session has written since: a shared key keeps the value of its latest event.

let server: MongoWireServer;
let raw: MongoClient;
const opened: MongoSessionService[] = [];
let counter = 0;

beforeAll(async () => {
  server = await MongoWireServer.start();
  raw = await MongoClient.connect(server.uri);
});
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});
afterAll(async () => {
  await raw.close();
  await server.close();
});

function open(dbName: string): MongoSessionService {
  const service = new MongoSessionService({ uri: server.uri, dbName });
  opened.push(service);
  return service;
}
const set = (delta: Record<string, unknown>, timestamp?: number) =>
  createEvent({ author: "agent", actions: { stateDelta: delta }, ...(timestamp === undefined ? {} : { timestamp }) });
/** The next `update` command drops its connection, as if the writer died right after inserting its event. */
const dieOnNextUpdate = () =>
  raw.db("admin").command({
    configureFailPoint: "failCommand",
    mode: { times: 1 },
    data: { failCommands: ["update"], closeConnection: true },
  });

describe("MongoSessionService shared state ordering", () => {
  it("does not let a rolled-forward old append overwrite a newer app: or user: value from another session", async () => {
    const dbName = `shared_${++counter}`;
    const writer = open(dbName);
    const a = await writer.createSession({ appName: "app", userId: "u1", sessionId: "a" });
    const b = await writer.createSession({ appName: "app", userId: "u1", sessionId: "b" });
    await dieOnNextUpdate();
    const start = Date.now() / 1000;
    await expect(
      writer.appendEvent({ session: a, event: set({ "app:color": "red", "user:pet": "cat", own: 1 }, start) }),
    ).rejects.toBeInstanceOf(SessionError);
    // b's event is the newer one.
    await writer.appendEvent({ session: b, event: set({ "app:color": "blue", "user:pet": "dog" }, start + 0.01) });

    // A reader of session a completes its pending append...
    const reader = open(dbName);
    const aBack = await reader.getSession({ appName: "app", userId: "u1", sessionId: "a" });
    expect(aBack?.events).toHaveLength(1);
    expect(aBack?.state.own).toBe(1);
    // ...but the shared keys keep b's newer values, seen the same way from both sessions.
    expect(aBack?.state).toMatchObject({ "app:color": "blue", "user:pet": "dog" });
    const bBack = await reader.getSession({ appName: "app", userId: "u1", sessionId: "b" });
    expect(bBack?.state).toMatchObject({ "app:color": "blue", "user:pet": "dog" });
  });

  it("still applies a rolled-forward shared key that nobody changed since, and new keys", async () => {
    const dbName = `shared_${++counter}`;
    const writer = open(dbName);
    const a = await writer.createSession({ appName: "app", userId: "u1", sessionId: "a", state: { "app:old": 0 } });
    await dieOnNextUpdate();
    await expect(
      writer.appendEvent({ session: a, event: set({ "app:old": 1, "app:fresh": true, "user:x": 2 }) }),
    ).rejects.toBeInstanceOf(SessionError);
    const back = await open(dbName).getSession({ appName: "app", userId: "u1", sessionId: "a" });
    expect(back?.state).toEqual({ "app:old": 1, "app:fresh": true, "user:x": 2 });
  });

  it("keeps the latest event's value when sessions write one shared key out of order", async () => {
    const dbName = `shared_${++counter}`;
    const one = open(dbName);
    const two = open(dbName);
    const sessions = await Promise.all(
      ["a", "b", "c", "d"].map((id) => one.createSession({ appName: "app", userId: "u1", sessionId: id })),
    );
    // Distinct times: the event made last is the latest.
    const start = Date.now() / 1000;
    const events = sessions.map((_, i) => set({ "app:last": i, "user:last": i }, start + i / 100));
    // Written newest first, through two instances: the older writes that arrive later must not win.
    for (let i = sessions.length - 1; i >= 0; i--) {
      await (i % 2 ? two : one).appendEvent({ session: sessions[i]!, event: events[i]! });
    }
    const back = await one.getSession({ appName: "app", userId: "u1", sessionId: "a" });
    expect(back?.state["app:last"]).toBe(3);
    expect(back?.state["user:last"]).toBe(3);
  });

  it("reads shared state stored without per-key times (before this versioning) and upgrades it on write", async () => {
    const dbName = `shared_${++counter}`;
    await raw
      .db(dbName)
      .collection(APP_STATE_COLLECTION)
      .insertOne({ appName: "app", state: { legacy: "yes", color: "old" }, updateTime: 1 });
    await raw
      .db(dbName)
      .collection(USER_STATE_COLLECTION)
      .insertOne({ appName: "app", userId: "u1", state: { pet: "fish" }, updateTime: 1 });
    const service = open(dbName);
    const s = await service.createSession({ appName: "app", userId: "u1", sessionId: "a" });
    expect(s.state).toEqual({ "app:legacy": "yes", "app:color": "old", "user:pet": "fish" });
    await service.appendEvent({ session: s, event: set({ "app:color": "new" }) });
    expect((await service.getSession({ appName: "app", userId: "u1", sessionId: "a" }))?.state).toEqual({
      "app:legacy": "yes",
      "app:color": "new",
      "user:pet": "fish",
    });
  });
});
