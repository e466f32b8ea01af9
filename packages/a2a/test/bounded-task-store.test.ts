import { describe, expect, it } from "@jest/globals";
import { TaskState, type ListTasksRequest, type Task } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { InMemoryTaskStore, ServerCallContext, type TaskStore } from "@a2a-js/sdk/server";
import { ConfigurationError } from "@agentkit/core";
import { BoundedTaskStore } from "../src/index.js";
import { userText } from "./helpers.js";

const alice = new ServerCallContext({ user: { isAuthenticated: true, userName: "alice" } });
const bob = new ServerCallContext({ user: { isAuthenticated: true, userName: "bob" } });
const aliceOfAcme = new ServerCallContext({ user: { isAuthenticated: true, userName: "alice" }, tenant: "acme" });

function task(id: string, state: TaskState, timestamp: string, contextId = "ctx-1"): Task {
  return {
    id,
    contextId,
    status: { state, timestamp, message: undefined },
    artifacts: [
      { artifactId: `${id}-a`, name: "out", description: "", parts: [], metadata: undefined, extensions: [] },
    ],
    history: [userText(`hello from ${id}`, { contextId, taskId: id })],
    metadata: undefined,
  };
}

const at = (second: number) => new Date(Date.UTC(2026, 10, 30, 12, 0, second)).toISOString();
const listAll = (params: Partial<ListTasksRequest> = {}): ListTasksRequest => ({
  tenant: "",
  contextId: "",
  status: TaskState.TASK_STATE_UNSPECIFIED,
  pageToken: "",
  statusTimestampAfter: undefined,
  ...params,
});
const ids = (tasks: readonly Task[]) => tasks.map((t) => t.id);

/** A clock the test moves by hand. */
function manualClock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

describe("BoundedTaskStore", () => {
  it("keeps each caller's tasks apart, by tenant and owner", async () => {
    const store = new BoundedTaskStore();
    await store.save(task("t1", TaskState.TASK_STATE_COMPLETED, at(1)), alice);
    expect((await store.load("t1", alice))?.id).toBe("t1");
    expect(await store.load("t1", bob)).toBeUndefined();
    expect(await store.load("t1", aliceOfAcme)).toBeUndefined();
    expect((await store.list(listAll(), bob)).tasks).toEqual([]);
    expect(ids((await store.list(listAll(), alice)).tasks)).toEqual(["t1"]);
  });

  it("copies tasks in and out: editing a saved or loaded task does not change the stored one", async () => {
    const store = new BoundedTaskStore();
    const saved = task("t1", TaskState.TASK_STATE_WORKING, at(1));
    await store.save(saved, alice);
    saved.history.push(userText("edited after save"));
    const loaded = await store.load("t1", alice);
    loaded?.artifacts.pop();
    const again = await store.load("t1", alice);
    expect(again?.history).toHaveLength(1);
    expect(again?.artifacts).toHaveLength(1);
    expect(again).not.toBe(loaded);
  });

  it("past maxTasks drops settled tasks before open ones, each oldest-saved first", async () => {
    const store = new BoundedTaskStore({ maxTasks: 3 });
    await store.save(task("waiting", TaskState.TASK_STATE_INPUT_REQUIRED, at(1)), alice);
    await store.save(task("done-1", TaskState.TASK_STATE_COMPLETED, at(2)), alice);
    await store.save(task("done-2", TaskState.TASK_STATE_FAILED, at(3)), bob);
    await store.save(task("working", TaskState.TASK_STATE_WORKING, at(4)), bob);
    expect(store.size).toBe(3);
    expect(await store.load("done-1", alice)).toBeUndefined();
    expect(await store.load("waiting", alice)).toBeDefined();

    await store.save(task("working-2", TaskState.TASK_STATE_SUBMITTED, at(5)), alice);
    expect(await store.load("done-2", bob)).toBeUndefined();
    // Only open tasks are left: the oldest-saved of them goes next, unless it was saved again.
    await store.save(task("waiting", TaskState.TASK_STATE_INPUT_REQUIRED, at(6)), alice);
    await store.save(task("working-3", TaskState.TASK_STATE_WORKING, at(7)), alice);
    expect(await store.load("working", bob)).toBeUndefined();
    expect(ids((await store.list(listAll(), alice)).tasks)).toEqual(["working-3", "waiting", "working-2"]);
    expect(store.size).toBe(3);
  });

  it("a task that settles moves to the settled tasks, and is dropped before open ones", async () => {
    const store = new BoundedTaskStore({ maxTasks: 2 });
    await store.save(task("a", TaskState.TASK_STATE_WORKING, at(1)), alice);
    await store.save(task("b", TaskState.TASK_STATE_WORKING, at(2)), alice);
    await store.save(task("b", TaskState.TASK_STATE_COMPLETED, at(3)), alice);
    await store.save(task("c", TaskState.TASK_STATE_WORKING, at(4)), alice);
    expect(ids((await store.list(listAll(), alice)).tasks)).toEqual(["c", "a"]);
  });

  it("drops a task not saved for ttlMs, and keeps one saved again in time", async () => {
    const clock = manualClock();
    const store = new BoundedTaskStore({ ttlMs: 60_000, now: clock.now });
    await store.save(task("old", TaskState.TASK_STATE_COMPLETED, at(1)), alice);
    await store.save(task("kept", TaskState.TASK_STATE_INPUT_REQUIRED, at(2)), alice);
    clock.advance(59_999);
    await store.save(task("kept", TaskState.TASK_STATE_INPUT_REQUIRED, at(3)), alice);
    expect((await store.load("old", alice))?.id).toBe("old");
    clock.advance(1);
    expect(await store.load("old", alice)).toBeUndefined();
    expect((await store.load("kept", alice))?.id).toBe("kept");
    expect(store.size).toBe(1);
    clock.advance(60_000);
    expect((await store.list(listAll(), alice)).tasks).toEqual([]);
    expect(store.size).toBe(0);
  });

  it("lists as the SDK's InMemoryTaskStore does: filters, order, artifacts, total size", async () => {
    const ours = new BoundedTaskStore();
    const sdk = new InMemoryTaskStore();
    const tasks = [
      task("t1", TaskState.TASK_STATE_COMPLETED, at(5), "ctx-1"),
      task("t2", TaskState.TASK_STATE_WORKING, at(9), "ctx-2"),
      task("t3", TaskState.TASK_STATE_COMPLETED, at(5), "ctx-1"),
      task("t4", TaskState.TASK_STATE_INPUT_REQUIRED, at(1), "ctx-1"),
      task("t5", TaskState.TASK_STATE_COMPLETED, at(7), "ctx-2"),
    ];
    for (const t of tasks) {
      await ours.save(t, alice);
      await sdk.save(t, alice);
    }
    const requests: Partial<ListTasksRequest>[] = [
      {},
      { contextId: "ctx-1" },
      { status: TaskState.TASK_STATE_COMPLETED },
      { statusTimestampAfter: at(5) },
      { includeArtifacts: true, pageSize: 2 },
      { contextId: "ctx-2", status: TaskState.TASK_STATE_WORKING, includeArtifacts: true },
    ];
    for (const request of requests) {
      const mine = await ours.list(listAll(request), alice);
      const theirs = await sdk.list(listAll(request), alice);
      expect(mine.tasks).toEqual(theirs.tasks);
      expect(mine.totalSize).toBe(theirs.totalSize);
      expect(mine.pageSize).toBe(theirs.pageSize);
      expect(mine.nextPageToken === "").toBe(theirs.nextPageToken === "");
    }
    expect(ids((await ours.list(listAll(), alice)).tasks)).toEqual(["t2", "t5", "t3", "t1", "t4"]);
  });

  it("pages on after the task a token names, even once that task was dropped or updated", async () => {
    const store = new BoundedTaskStore();
    for (let i = 1; i <= 5; i++) await store.save(task(`t${i}`, TaskState.TASK_STATE_COMPLETED, at(i)), alice);
    const first = await store.list(listAll({ pageSize: 2 }), alice);
    expect(ids(first.tasks)).toEqual(["t5", "t4"]);
    // t4 is updated (newer timestamp) between the pages: paging goes on after where t4 was.
    await store.save(task("t4", TaskState.TASK_STATE_COMPLETED, at(30)), alice);
    const second = await store.list(listAll({ pageSize: 2, pageToken: first.nextPageToken }), alice);
    expect(ids(second.tasks)).toEqual(["t3", "t2"]);
    const third = await store.list(listAll({ pageSize: 2, pageToken: second.nextPageToken }), alice);
    expect(ids(third.tasks)).toEqual(["t1"]);
    expect(third.nextPageToken).toBe("");
  });

  it("refuses a page token it did not make with the SDK's RequestMalformedError (a 400)", async () => {
    const store = new BoundedTaskStore();
    await store.save(task("t1", TaskState.TASK_STATE_COMPLETED, at(1)), alice);
    for (const pageToken of [
      "not a token",
      Buffer.from("2026|t1").toString("base64"),
      Buffer.from("[1,2]").toString("base64url"),
    ]) {
      await expect(store.list(listAll({ pageToken }), alice)).rejects.toBeInstanceOf(RequestMalformedError);
    }
  });

  it("refuses bad options with a ConfigurationError", () => {
    expect(() => new BoundedTaskStore({ maxTasks: 0 })).toThrow(ConfigurationError);
    expect(() => new BoundedTaskStore({ maxTasks: 1.5 })).toThrow(ConfigurationError);
    expect(() => new BoundedTaskStore({ ttlMs: 0 })).toThrow(ConfigurationError);
    expect(() => new BoundedTaskStore({ ttlMs: Number.NaN })).toThrow(ConfigurationError);
  });

  it("stays within maxTasks over many tasks of many callers", async () => {
    const store: TaskStore & { size: number } = new BoundedTaskStore({ maxTasks: 100 });
    for (let i = 0; i < 1_000; i++) {
      const caller = new ServerCallContext({ user: { isAuthenticated: true, userName: `user-${i % 37}` } });
      await store.save(task(`t${i}`, TaskState.TASK_STATE_COMPLETED, at(i % 60)), caller);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    const last = new ServerCallContext({ user: { isAuthenticated: true, userName: `user-${999 % 37}` } });
    expect((await store.load("t999", last))?.id).toBe("t999");
    expect(
      await store.load("t0", new ServerCallContext({ user: { isAuthenticated: true, userName: "user-0" } })),
    ).toBeUndefined();
  });
});
