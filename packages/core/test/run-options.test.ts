// RunConfig.maxConcurrentToolCalls, RunConfig.pauseOnToolCalls and Runner.runEphemeral.
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  ConfigurationError,
  FunctionTool,
  InMemoryArtifactService,
  InMemoryRunner,
  InMemorySessionService,
  LlmAgent,
  Runner,
  getFunctionCalls,
  getFunctionResponses,
} from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { collect } from "@agentkit/test-support/collect";

/** The in-memory store, counting saves: an ephemeral run must make none here. */
class CountingArtifacts extends InMemoryArtifactService {
  saves = 0;
  override saveArtifact(request: Parameters<InMemoryArtifactService["saveArtifact"]>[0]): Promise<number> {
    this.saves += 1;
    return super.saveArtifact(request);
  }
}

describe("RunConfig.maxConcurrentToolCalls", () => {
  it("runs at most that many calls of one turn at once and keeps responses in call order", async () => {
    const limit = 2;
    let active = 0;
    let most = 0;
    let open!: () => void;
    // Calls wait until `limit` of them are in flight at once: with a working limit the first two
    // open the gate; a limit of 1 would never get there, and no limit would exceed 2.
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const slow = new FunctionTool({
      name: "slow",
      description: "waits for company",
      parameters: z.object({ n: z.number() }),
      execute: async ({ n }) => {
        active += 1;
        most = Math.max(most, active);
        if (active === limit) open();
        await gate;
        active -= 1;
        return { n };
      },
    });
    const calls = [1, 2, 3, 4, 5].map((n) => ({ name: "slow", args: { n }, id: `c${n}` }));
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCalls(calls), ScriptedModel.text("ok")] });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model, tools: [slow] }) });
    await runner.sessionService.createSession({ appName: runner.appName, userId: "u", sessionId: "s" });
    const events = await collect(
      runner.runAsync({ userId: "u", sessionId: "s", newMessage: "go", runConfig: { maxConcurrentToolCalls: limit } }),
    );
    expect(most).toBe(limit);
    const responses = events.flatMap((e) => getFunctionResponses(e));
    expect(responses.map((r) => r.id)).toEqual(["c1", "c2", "c3", "c4", "c5"]);
    expect(responses.map((r) => r.response)).toEqual([1, 2, 3, 4, 5].map((n) => ({ n })));
  });

  it("refuses a limit that is not a positive integer", async () => {
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "root", model: new ScriptedModel({ steps: [] }) }),
    });
    await runner.sessionService.createSession({ appName: runner.appName, userId: "u", sessionId: "s" });
    for (const maxConcurrentToolCalls of [0, 1.5, -1]) {
      await expect(
        collect(
          runner.runAsync({ userId: "u", sessionId: "s", newMessage: "x", runConfig: { maxConcurrentToolCalls } }),
        ),
      ).rejects.toBeInstanceOf(ConfigurationError);
    }
  });
});

describe("RunConfig.pauseOnToolCalls", () => {
  it("stores the calls as pending, runs no tool, and continues when the client answers them", async () => {
    let ran = 0;
    const lookup = new FunctionTool({
      name: "lookup",
      description: "looks up",
      execute: () => {
        ran += 1;
        return { found: true };
      },
    });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("lookup", {}, "call-1"), ScriptedModel.text("thanks")],
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model, tools: [lookup] }) });
    await runner.sessionService.createSession({ appName: runner.appName, userId: "u", sessionId: "s" });
    const paused = await collect(
      runner.runAsync({ userId: "u", sessionId: "s", newMessage: "find it", runConfig: { pauseOnToolCalls: true } }),
    );
    expect(paused).toHaveLength(1);
    expect(getFunctionCalls(paused[0]!).map((c) => c.id)).toEqual(["call-1"]);
    expect(paused[0]!.longRunningToolIds).toEqual(["call-1"]);
    expect(ran).toBe(0);

    const answer = {
      role: "user",
      parts: [{ functionResponse: { id: "call-1", name: "lookup", response: { v: 7 } } }],
    };
    const resumed = await collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: answer }));
    expect(resumed.at(-1)!.content?.parts?.[0]?.text).toBe("thanks");
    expect(ran).toBe(0);
    const sent = model.requests[1]!.contents.flatMap((c) => c.parts ?? []);
    expect(sent.some((p) => p.functionResponse?.id === "call-1" && p.functionResponse.response?.v === 7)).toBe(true);
  });
});

describe("Runner.runEphemeral", () => {
  it("runs on a throwaway session and leaves nothing in the runner's stores", async () => {
    const note = new FunctionTool({
      name: "note",
      description: "saves a note",
      execute: async (_args, toolContext) => {
        toolContext.state.set("noted", toolContext.state.get("topic"));
        await toolContext.saveArtifact("n.txt", { text: "x" });
        return { ok: true };
      },
    });
    const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("note"), ScriptedModel.text("done")] });
    const sessionService = new InMemorySessionService();
    const artifactService = new CountingArtifacts();
    const agent = new LlmAgent({ name: "root", model, tools: [note] });
    const runner = new Runner({ appName: "app", agent, sessionService, artifactService });
    const events = await collect(runner.runEphemeral({ userId: "u", newMessage: "hi", state: { topic: "cats" } }));
    expect(events.at(-1)!.content?.parts?.[0]?.text).toBe("done");
    const responded = events.find((e) => e.actions.stateDelta.noted !== undefined);
    expect(responded?.actions.stateDelta).toEqual({ noted: "cats" });
    expect(responded?.actions.artifactDelta).toEqual({ "n.txt": 0 });
    expect((await sessionService.listSessions({ appName: "app" })).sessions).toEqual([]);
    expect(artifactService.saves).toBe(0);
  });
});
