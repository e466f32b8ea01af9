import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { FunctionTool, LlmAgent, ParallelAgent, Runner } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { MongoSessionService } from "../src/mongodb/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";
import { collect } from "@agentkit/test-support/collect";

describe("Runner on MongoSessionService", () => {
  let server: MongoWireServer;
  beforeAll(async () => {
    server = await MongoWireServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  function agentTree(models: ScriptedModel[]) {
    const remember = (name: string) =>
      new FunctionTool({
        name: `remember_${name}`,
        description: "Stores a fact",
        parameters: { type: "object", properties: { fact: { type: "string" } }, required: ["fact"] },
        execute: async (args, context) => {
          context.state.set(`${name}_fact`, (args as { fact: string }).fact);
          context.state.set("user:facts", ((context.state.get<number>("user:facts") ?? 0) as number) + 1);
          context.state.set("temp:scratch", true);
          return { ok: true };
        },
      });
    const a = new LlmAgent({ name: "a", model: models[0]!, tools: [remember("a")] });
    const b = new LlmAgent({ name: "b", model: models[1]!, tools: [remember("b")] });
    return new ParallelAgent({ name: "root", subAgents: [a, b] });
  }

  it("runs parallel agents (concurrent appends through one session), survives a restart and continues the conversation", async () => {
    const first = new MongoSessionService({ uri: server.uri, dbName: "runner" });
    const models1 = [
      new ScriptedModel({
        steps: [ScriptedModel.functionCall("remember_a", { fact: "owls" }, "ca"), ScriptedModel.text("a done")],
      }),
      new ScriptedModel({
        steps: [ScriptedModel.functionCall("remember_b", { fact: "bats" }, "cb"), ScriptedModel.text("b done")],
      }),
    ];
    const runner1 = new Runner({ appName: "zoo", agent: agentTree(models1), sessionService: first });
    await first.createSession({ appName: "zoo", userId: "u1", sessionId: "s1" });
    const events1 = await collect(runner1.runAsync({ userId: "u1", sessionId: "s1", newMessage: "learn" }));
    await runner1.close();
    await first.close();

    const second = new MongoSessionService({ uri: server.uri, dbName: "runner" });
    const stored = (await second.getSession({ appName: "zoo", userId: "u1", sessionId: "s1" }))!;
    // The user's message first, then every event the run yielded, in the order it yielded them.
    expect(stored.events[0]?.content?.parts?.[0]?.text).toBe("learn");
    expect(stored.events.slice(1).map((e) => e.id)).toEqual(events1.filter((e) => !e.partial).map((e) => e.id));
    expect(stored.events).toHaveLength(1 + 2 * 3);
    expect(stored.state).toMatchObject({ a_fact: "owls", b_fact: "bats" });
    expect(stored.state["temp:scratch"]).toBeUndefined();
    expect(stored.state["user:facts"]).toBeGreaterThanOrEqual(1);

    const models2 = [
      new ScriptedModel({ steps: [ScriptedModel.text("a again")] }),
      new ScriptedModel({ steps: [ScriptedModel.text("b again")] }),
    ];
    const runner2 = new Runner({ appName: "zoo", agent: agentTree(models2), sessionService: second });
    await collect(runner2.runAsync({ userId: "u1", sessionId: "s1", newMessage: "again" }));
    // The model of the second run sees the first run's history, read back from MongoDB.
    const seen = JSON.stringify(models2[0]!.requests[0]!.contents);
    expect(seen).toContain("learn");
    expect(seen).toContain("remember_a");
    expect(seen).toContain("again");
    expect((await second.getSession({ appName: "zoo", userId: "u1", sessionId: "s1" }))?.events).toHaveLength(7 + 3);
    await runner2.close();
    await second.close();
  });
});
