import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  AgentTool,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  RunAbortedError,
  getFunctionResponses,
  type Event,
} from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";
import { RecordingPlugin, RecordingToolset, collect } from "./runner-fixtures/test-agents.js";

async function setup(root: LlmAgent, state: Record<string, unknown> = {}, plugins = [] as RecordingPlugin[]) {
  const runner = new InMemoryRunner({ agent: root, appName: "app", plugins });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s", state });
  const stored = async () => (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return {
    runner,
    stored,
    run: (message: string, signal?: AbortSignal) =>
      collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage: message, signal })),
  };
}
const responseOf = (events: Event[]) => events.flatMap(getFunctionResponses)[0]?.response;
const lastUserText = (model: ScriptedModel, i: number) => {
  const contents = model.requests[i]!.contents;
  return contents[contents.length - 1]!.parts?.map((p) => p.text ?? "").join("");
};

describe("AgentTool", () => {
  it("declares { request } and runs the agent on a copy of the caller's state, forwarding state and artifacts back", async () => {
    const research = new FunctionTool({
      name: "research",
      description: "Researches",
      execute: async (_args, toolContext) => {
        toolContext.state.set("finding", `about ${String(toolContext.state.get("topic"))}`);
        toolContext.state.set("temp:scratch", 1);
        await toolContext.saveArtifact("report.txt", {
          inlineData: { mimeType: "text/plain", data: Buffer.from("report").toString("base64") },
        });
        return { ok: true };
      },
    });
    const childModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("research", {}, "r1"), ScriptedModel.text("the child answer")],
    });
    const child = new LlmAgent({
      name: "researcher",
      description: "Finds things",
      model: childModel,
      instruction: "Topic is {topic}.",
      tools: [research],
    });
    const tool = new AgentTool({ agent: child });
    expect(tool.getDeclaration()).toEqual({
      name: "researcher",
      description: "Finds things",
      parametersJsonSchema: { type: "object", properties: { request: { type: "string" } }, required: ["request"] },
    });

    const parentModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("researcher", { request: "look it up" }, "c1"), ScriptedModel.text("done")],
    });
    const root = new LlmAgent({ name: "root", model: parentModel, tools: [tool] });
    const { run, stored, runner } = await setup(root, { topic: "owls" });
    const events = await run("go");

    expect(responseOf(events)).toEqual({ result: "the child answer" });
    expect(lastUserText(childModel, 0)).toBe("look it up");
    expect(JSON.stringify(childModel.requests[0]!.config.systemInstruction)).toContain("Topic is owls.");
    const responseEvent = events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(responseEvent.actions.stateDelta).toEqual({ finding: "about owls" });
    expect(responseEvent.actions.artifactDelta).toEqual({ "report.txt": 0 });
    const session = await stored();
    expect(session.state).toEqual({ topic: "owls", finding: "about owls" });
    const saved = await runner.artifactService.loadArtifact({
      appName: "app",
      userId: "u",
      sessionId: "s",
      filename: "report.txt",
    });
    expect(Buffer.from(saved!.inlineData!.data!, "base64").toString()).toBe("report");
    // The child's events stay in the child session.
    expect(session.events.some((e) => e.author === "researcher")).toBe(false);
  });

  it("uses the agent's inputSchema for arguments and its outputSchema for the result", async () => {
    const childModel = new ScriptedModel({ steps: [ScriptedModel.text('{"sum": 5}')] });
    const adder = new LlmAgent({
      name: "adder",
      description: "Adds",
      model: childModel,
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    });
    const tool = new AgentTool({ agent: adder });
    expect(tool.getDeclaration().parametersJsonSchema).toMatchObject({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
    });

    const parentModel = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("adder", { a: "x" }, "bad"),
        ScriptedModel.functionCall("adder", { a: 2, b: 3 }, "good"),
        ScriptedModel.text("5"),
      ],
    });
    const { run } = await setup(new LlmAgent({ name: "root", model: parentModel, tools: [tool] }));
    const events = await run("add");
    const responses = events.flatMap(getFunctionResponses);
    expect(String(responses[0]!.response!.error)).toMatch(/Invalid arguments for agent adder/);
    expect(responses[1]!.response).toEqual({ sum: 5 });
    expect(JSON.parse(lastUserText(childModel, 0)!)).toEqual({ a: 2, b: 3 });
    childModel.assertConsumed();
  });

  it("skipSummarization returns the agent's answer without another model turn", async () => {
    const child = new LlmAgent({ name: "echo", model: new ScriptedModel({ steps: [ScriptedModel.text("verbatim")] }) });
    const parentModel = new ScriptedModel({ steps: [ScriptedModel.functionCall("echo", { request: "say it" }, "c1")] });
    const { run } = await setup(
      new LlmAgent({
        name: "root",
        model: parentModel,
        tools: [new AgentTool({ agent: child, skipSummarization: true })],
      }),
    );
    const events = await run("go");
    expect(events.at(-1)!.actions.skipSummarization).toBe(true);
    expect(responseOf(events)).toEqual({ result: "verbatim" });
    expect(parentModel.requests).toHaveLength(1);
  });

  it("runs the parent's plugins in the child run", async () => {
    const recorder = new RecordingPlugin();
    const child = new LlmAgent({ name: "echo", model: new ScriptedModel({ steps: [ScriptedModel.text("hi")] }) });
    const parentModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("echo", { request: "x" }, "c1"), ScriptedModel.text("ok")],
    });
    const { run } = await setup(
      new LlmAgent({ name: "root", model: parentModel, tools: [new AgentTool({ agent: child })] }),
      {},
      [recorder],
    );
    await run("go");
    expect(recorder.calls.filter((c) => c === "beforeModel")).toHaveLength(3);
    expect(recorder.calls.filter((c) => c === "beforeRun")).toHaveLength(2);
  });

  it("propagates the caller's abort into the child run", async () => {
    const controller = new AbortController();
    // The child's model call aborts the caller's run as it starts, then would wait an hour.
    const childModel = new ScriptedModel({
      delayMs: 3_600_000,
      steps: [{ step: ScriptedModel.text("late"), expect: () => controller.abort() }],
    });
    const child = new LlmAgent({ name: "slow", model: childModel });
    const parentModel = new ScriptedModel({ steps: [ScriptedModel.functionCall("slow", { request: "x" }, "c1")] });
    const { run, stored } = await setup(
      new LlmAgent({ name: "root", model: parentModel, tools: [new AgentTool({ agent: child })] }),
    );
    await expect(run("go", controller.signal)).rejects.toBeInstanceOf(RunAbortedError);
    expect((await stored()).events.some((e) => getFunctionResponses(e).length > 0)).toBe(false);
  });

  it("runner.close() closes toolsets of the tree and of agents wrapped in AgentTools, once", async () => {
    const innerSet = new RecordingToolset();
    const outerSet = new RecordingToolset();
    const subSet = new RecordingToolset();
    const wrapped = new LlmAgent({ name: "wrapped", model: new ScriptedModel(), tools: [innerSet] });
    const sub = new LlmAgent({ name: "sub", model: new ScriptedModel(), tools: [subSet] });
    const root = new LlmAgent({
      name: "root",
      model: new ScriptedModel(),
      tools: [outerSet, new AgentTool({ agent: wrapped })],
      subAgents: [sub],
    });
    const recorder = new RecordingPlugin();
    const runner = new InMemoryRunner({ agent: root, plugins: [recorder] });
    await runner.close();
    await runner.close();
    expect([outerSet.closed, innerSet.closed, subSet.closed, recorder.closed]).toEqual([1, 1, 1, 1]);
  });
});
