// Runs of one A2A context (one session) take turns, and `admitRun` decides when a message's run
// may start: the executor's default per-session queue, or the server's (`ServerContext.admitRun`).
import { describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { TaskState, type Task } from "@a2a-js/sdk";
import type { RequestContext } from "@a2a-js/sdk/server";
import { AgentKitError, getTextOf } from "@agentkit/core";
import { ScriptedModel, type ScriptStep } from "@agentkit/core/testing";
import { collect } from "@agentkit/test-support/collect";
import { type Deferred, deferred } from "@agentkit/test-support/deferred";
import { A2AMetadataKey } from "../src/index.js";
import { TRANSPORTS } from "./helpers.js";
import { contextSession, send, useOurServer } from "./our-server.js";

/** What a server's shutdown aborts a run with (a coded agentkit error). */
class StoppedByServer extends AgentKitError {
  constructor() {
    super("SHUTTING_DOWN", "The server is shutting down.");
  }
}

/** A model step that answers `text` only once the test opens its gate (`started` says it was reached). */
function heldAnswer(text: string): { step: ScriptStep; started: Deferred; gate: Deferred } {
  const started = deferred();
  const gate = deferred();
  const step = async () => {
    started.resolve();
    await gate.promise;
    return ScriptedModel.text(text);
  };
  return { step, started, gate };
}

/** A `beforeExecuteCallback` resolving `arrived` with the task id of the message whose text is `text`. */
function whenText(text: string, arrived: Deferred<string>) {
  return (context: RequestContext) => {
    if (context.userMessage.parts.some((p) => p.content?.$case === "text" && p.content.value === text))
      arrived.resolve(context.taskId);
  };
}

describe.each(TRANSPORTS)("runs of one A2A context and their admission (%s)", (transport) => {
  const ours = useOurServer(transport);
  const start = ours.start;

  it("two messages of one new context take turns: both complete, the second run sees the first", async () => {
    const first = heldAnswer("First answer.");
    const secondArrived = deferred<string>();
    const s = await start({
      steps: [first.step, ScriptedModel.text("Second answer.")],
      beforeExecuteCallback: whenText("Second", secondArrived),
    });
    const contextId = `ctx-${randomUUID()}`;
    const firstTask = ours.client.sendMessage(send("First", { contextId }));
    await first.started.promise;
    // The second message reaches the executor while the first run waits inside its model call.
    const second = ours.client.sendMessage(send("Second", { contextId }));
    await secondArrived.promise;
    first.gate.resolve();
    const [a, b] = (await Promise.all([firstTask, second])) as [Task, Task];
    expect(a.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(b.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const session = await contextSession(s, contextId);
    expect(session!.events.map((e) => getTextOf(e.content))).toEqual([
      "First",
      "First answer.",
      "Second",
      "Second answer.",
    ]);
    // The second run started after the first had ended: its model saw the first exchange.
    expect(s.model.requests[1]!.contents.map((c) => getTextOf(c))).toEqual(["First", "First answer.", "Second"]);
  });

  it("a context's session made by another process between the read and the create is read, not a failure", async () => {
    const s = await start({ steps: [ScriptedModel.text("Hello.")] });
    const sessions = s.runner.sessionService;
    const create = sessions.createSession.bind(sessions);
    let creates = 0;
    sessions.createSession = async (request) => {
      creates++;
      // Another replica of the same store makes the session first.
      await create({ ...request, state: { made: "elsewhere" } });
      return create(request);
    };
    const contextId = `ctx-${randomUUID()}`;
    const task = (await ours.client.sendMessage(send("Hi", { contextId }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(creates).toBe(1);
    const session = await contextSession(s, contextId);
    expect(session!.state).toEqual({ made: "elsewhere" });
    expect(session!.events.map((e) => getTextOf(e.content))).toEqual(["Hi", "Hello."]);
  });

  it("a task canceled while it waits for its context's turn ends canceled and never runs", async () => {
    const first = heldAnswer("First answer.");
    const waiting = deferred<string>();
    const s = await start({ steps: [first.step], beforeExecuteCallback: whenText("Second", waiting) });
    const contextId = `ctx-${randomUUID()}`;
    const firstTask = ours.client.sendMessage(send("First", { contextId }));
    await first.started.promise;
    const stream = collect(ours.client.sendMessageStream(send("Second", { contextId })));
    const taskId = await waiting.promise;
    await ours.client.cancelTask({ tenant: "", id: taskId, metadata: undefined });
    first.gate.resolve();
    expect(((await firstTask) as Task).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const states = (await stream).flatMap((r) =>
      r.payload?.$case === "statusUpdate" ? [r.payload.value.status?.state] : [],
    );
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
    expect(states).not.toContain(TaskState.TASK_STATE_WORKING);
    // Only the first message ran: one model call, and the session holds the first exchange alone.
    expect(s.model.requests).toHaveLength(1);
    const session = await contextSession(s, contextId);
    expect(session!.events.map((e) => getTextOf(e.content))).toEqual(["First", "First answer."]);
  });

  it("admitRun: a run it stops (a server shutting down) ends failed with the reason's code, and is ended", async () => {
    const held = heldAnswer("Too late.");
    const admitted = deferred<AbortController>();
    let ended = 0;
    await start({
      steps: [held.step],
      admitRun: async (key, run) => {
        expect(key.appName).toBe("weather_app");
        admitted.resolve(run);
        return () => {
          ended++;
        };
      },
    });
    const task = ours.client.sendMessage(send("Hi"));
    await held.started.promise;
    (await admitted.promise).abort(new StoppedByServer());
    held.gate.resolve();
    const done = (await task) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(done.status?.message?.metadata?.[A2AMetadataKey.ERROR_CODE]).toBe("SHUTTING_DOWN");
    expect(ended).toBe(1);
  });

  it("admitRun refusing a run fails the task with the refusal's code; nothing runs or is stored", async () => {
    const s = await start({
      steps: [],
      admitRun: async () => {
        throw new StoppedByServer();
      },
    });
    const contextId = `ctx-${randomUUID()}`;
    const task = (await ours.client.sendMessage(send("Hi", { contextId }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.status?.message?.metadata?.[A2AMetadataKey.ERROR_CODE]).toBe("SHUTTING_DOWN");
    expect(s.model.requests).toHaveLength(0);
    const session = await contextSession(s, contextId);
    expect(session).toBeUndefined();
  });

  it("a context id no session store accepts fails the task before admission: no turn, no run allowance", async () => {
    let admitted = 0;
    const s = await start({
      steps: [],
      admitRun: async () => {
        admitted++;
        return () => {};
      },
    });
    const task = (await ours.client.sendMessage(send("Hi", { contextId: "../../etc" }))) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(task.status?.message?.metadata?.[A2AMetadataKey.ERROR_CODE]).toBe("INVALID_SESSION_KEY");
    expect(admitted).toBe(0);
    expect(s.model.requests).toHaveLength(0);
  });
});
