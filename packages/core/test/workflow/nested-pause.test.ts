import { describe, expect, it } from "@jest/globals";
import {
  AgentTool,
  App,
  FunctionNode,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  Workflow,
  getFunctionCalls,
  getFunctionResponses,
  type BaseAgent,
  type Content,
  type Event,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { outputs } from "./helpers.js";

async function appFor(rootAgent: BaseAgent, resumable = true) {
  const runner = resumable
    ? new InMemoryRunner({ app: new App({ name: "app", rootAgent, resumability: { isResumable: true } }) })
    : new InMemoryRunner({ agent: rootAgent, appName: "app" });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const send = async (newMessage: string | Content) => {
    const out: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage })) out.push(e);
    return out;
  };
  const answer = (id: string, name: string, response: Record<string, unknown>) =>
    send({ role: "user", parts: [{ functionResponse: { id, name, response } }] });
  return { runner, send, answer };
}

function worker() {
  let deletions = 0;
  const deleteFiles = new FunctionTool({
    name: "delete_files",
    description: "Deletes files.",
    requireConfirmation: true,
    execute: () => {
      deletions++;
      return { deleted: 3 };
    },
  });
  const model = new ScriptedModel({
    steps: [ScriptedModel.functionCall("delete_files", {}, "d1"), ScriptedModel.text("deleted 3 files")],
  });
  const agent = new LlmAgent({ name: "cleaner", description: "Cleans up.", model, tools: [deleteFiles] });
  return { agent, model, deletions: () => deletions };
}

describe("a pause inside an agent tool", () => {
  it("inside a workflow: the confirmation reaches the client and the answer continues every level", async () => {
    const inner = worker();
    const managerModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("cleaner", { request: "clean /tmp" }, "p1"), ScriptedModel.text("all clean")],
    });
    const manager = new LlmAgent({
      name: "manager",
      model: managerModel,
      tools: [new AgentTool({ agent: inner.agent })],
    });
    let reported = 0;
    const report = new FunctionNode("report", (_c, text: string) => {
      reported++;
      return `report: ${text}`;
    });
    const app = await appFor(new Workflow({ name: "ops", edges: [["START", manager, report]] }));

    const first = await app.send("clean up please");
    const surfaced = first.find((e) =>
      getFunctionCalls(e).some((c) => c.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME),
    )!;
    expect(surfaced.author).toBe("manager");
    const request = getFunctionCalls(surfaced)[0]!;
    expect(surfaced.longRunningToolIds).toEqual([request.id]);
    expect(request.args).toMatchObject({ originalFunctionCall: { id: "d1", name: "delete_files" } });
    expect(inner.deletions()).toBe(0);
    expect(reported).toBe(0);

    const second = await app.answer(request.id!, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, { confirmed: true });
    expect(inner.deletions()).toBe(1);
    // The manager's call of the agent tool is answered once, with the agent's answer.
    const toolResponses = second.flatMap(getFunctionResponses).filter((r) => r.id === "p1");
    expect(toolResponses).toEqual([{ id: "p1", name: "cleaner", response: { result: "deleted 3 files" } }]);
    expect(outputs(second)).toEqual([
      ["manager", "all clean"],
      ["report", "report: all clean"],
    ]);
    // The manager's model never saw the cleaner's confirmation round trip.
    const lastRequest = JSON.stringify(managerModel.requests.at(-1)!.contents);
    expect(lastRequest).not.toContain(REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
    expect(lastRequest).toContain("deleted 3 files");
    inner.model.assertConsumed();
    managerModel.assertConsumed();
  });

  it("without a workflow or resumability, the agent that called the tool continues", async () => {
    const inner = worker();
    const managerModel = new ScriptedModel({
      steps: [ScriptedModel.functionCall("cleaner", { request: "clean" }, "p1"), ScriptedModel.text("done")],
    });
    const manager = new LlmAgent({
      name: "manager",
      model: managerModel,
      tools: [new AgentTool({ agent: inner.agent })],
    });
    const app = await appFor(manager, false);
    const first = await app.send("clean");
    const request = first.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CONFIRMATION_FUNCTION_CALL_NAME)!;
    const second = await app.answer(request.id!, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, { confirmed: true });
    expect(inner.deletions()).toBe(1);
    expect(second.at(-1)!.content!.parts![0]!.text).toBe("done");
  });

  it("a workflow inside an agent tool asks for input through its caller", async () => {
    const ask = new FunctionNode("ask", (ctx) => ctx.requestInput({ message: "Which city?" }));
    const weather = new FunctionNode("weather", (_c, city: string) => `sunny in ${city}`);
    const forecast = new Workflow({
      name: "forecast",
      description: "Finds the weather.",
      edges: [["START", ask, weather]],
    });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("forecast", { request: "weather?" }, "p1"),
        ScriptedModel.text("It is sunny."),
      ],
    });
    const assistant = new LlmAgent({ name: "assistant", model, tools: [new AgentTool({ agent: forecast })] });
    const app = await appFor(assistant);
    const first = await app.send("weather?");
    const request = first.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_INPUT_FUNCTION_CALL_NAME)!;
    expect(request.args).toMatchObject({ message: "Which city?" });
    const second = await app.answer(request.id!, REQUEST_INPUT_FUNCTION_CALL_NAME, { result: "Paris" });
    expect(second.flatMap(getFunctionResponses).find((r) => r.id === "p1")!.response).toEqual({
      result: "sunny in Paris",
    });
    expect(second.at(-1)!.content!.parts![0]!.text).toBe("It is sunny.");
  });
});
