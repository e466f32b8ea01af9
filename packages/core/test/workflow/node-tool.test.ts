import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { z as z3 } from "zod/v3";
import {
  App,
  ConfigurationError,
  FunctionNode,
  InMemoryRunner,
  LlmAgent,
  NodeTool,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  Workflow,
  getFunctionCalls,
  getFunctionResponses,
  type BaseAgent,
  type Content,
  type Event,
  type LlmRequest,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

async function appFor(rootAgent: BaseAgent) {
  const runner = new InMemoryRunner({ app: new App({ name: "app", rootAgent, resumability: { isResumable: true } }) });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const send = async (newMessage: string | Content) => {
    const out: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: "s", newMessage })) out.push(e);
    return out;
  };
  return { runner, send };
}

const responseOf = (events: Event[], id: string) =>
  events.flatMap(getFunctionResponses).find((r) => r.id === id)?.response;

describe("NodeTool: a workflow or node as a tool", () => {
  it("declares the workflow's input schema; the arguments are its input and its output the result", async () => {
    const quote = new FunctionNode("quote", (_c, order: { item: string; qty: number }) => ({
      item: order.item,
      total: order.qty * 3,
    }));
    const format = new FunctionNode("format", (_c, q: { item: string; total: number }) => `${q.item}: ${q.total} EUR`);
    const pricing = new Workflow({
      name: "pricing",
      description: "Prices an order.",
      inputSchema: z.object({ item: z.string(), qty: z.number().int() }),
      edges: [["START", quote, format]],
    });
    const seen: LlmRequest[] = [];
    const model = new ScriptedModel({
      steps: [
        (request) => {
          seen.push(request);
          return ScriptedModel.functionCall("pricing", { item: "tea", qty: 4 }, "p1");
        },
        ScriptedModel.text("Tea costs 12 EUR."),
      ],
    });
    const app = await appFor(new LlmAgent({ name: "clerk", model, tools: [new NodeTool({ node: pricing })] }));
    const events = await app.send("price 4 tea");
    const declaration = seen[0]!.config?.tools?.[0]?.functionDeclarations?.[0];
    expect(declaration).toMatchObject({
      name: "pricing",
      description: "Prices an order.",
      parametersJsonSchema: { type: "object", required: ["item", "qty"] },
    });
    expect(responseOf(events, "p1")).toEqual({ result: "tea: 12 EUR" });
    expect(events.at(-1)!.content!.parts![0]!.text).toBe("Tea costs 12 EUR.");
  });

  it("a function node without a schema takes the request text; bad arguments never run it", async () => {
    let runs = 0;
    const shout = new FunctionNode("shout", (_c, text: string) => {
      runs++;
      return text.toUpperCase();
    });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("shout", { text: "no request field" }, "bad"),
        ScriptedModel.functionCall("shout", { request: "hello" }, "good"),
        ScriptedModel.text("done"),
      ],
    });
    const app = await appFor(new LlmAgent({ name: "a", model, tools: [new NodeTool({ node: shout })] }));
    const events = await app.send("shout hello");
    expect(responseOf(events, "bad")).toEqual({
      error: expect.stringMatching(/^Invalid arguments for shout: request/),
    });
    expect(responseOf(events, "good")).toEqual({ result: "HELLO" });
    expect(runs).toBe(1);
  });

  it("a pause inside the workflow pauses the call; the answer continues the workflow and the caller", async () => {
    let weatherRuns = 0;
    const ask = new FunctionNode("ask", (ctx) => ctx.requestInput({ message: "Which city?" }));
    const weather = new FunctionNode("weather", (_c, city: string) => {
      weatherRuns++;
      return `sunny in ${city}`;
    });
    const forecast = new Workflow({ name: "forecast", edges: [["START", ask, weather]] });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("forecast", { request: "weather?" }, "f1"), ScriptedModel.text("Sunny.")],
    });
    const app = await appFor(
      new LlmAgent({ name: "assistant", model, tools: [new NodeTool({ node: forecast, name: "forecast" })] }),
    );
    const first = await app.send("weather?");
    const request = first.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_INPUT_FUNCTION_CALL_NAME)!;
    expect(request.args).toMatchObject({ message: "Which city?" });
    expect(weatherRuns).toBe(0);
    const second = await app.send({
      role: "user",
      parts: [
        { functionResponse: { id: request.id, name: REQUEST_INPUT_FUNCTION_CALL_NAME, response: { result: "Oslo" } } },
      ],
    });
    expect(responseOf(second, "f1")).toEqual({ result: "sunny in Oslo" });
    expect(weatherRuns).toBe(1);
    expect(second.at(-1)!.content!.parts![0]!.text).toBe("Sunny.");
  });

  it("refuses a node whose schema cannot be declared (zod 3) unless parameters are given", () => {
    const legacy = new FunctionNode("legacy", (_c, v: { n: number }) => v.n, {
      inputSchema: z3.object({ n: z3.number() }),
    });
    expect(() => new NodeTool({ node: legacy })).toThrow(ConfigurationError);
    expect(() => new NodeTool({ node: legacy })).toThrow(/give NodeTool `parameters`/);
    const tool = new NodeTool({ node: legacy, parameters: z.object({ n: z.number() }) });
    expect(tool.getDeclaration().parametersJsonSchema).toMatchObject({ required: ["n"] });
    expect(() => new NodeTool({} as never)).toThrow(/NodeTool needs a node/);
  });
});
