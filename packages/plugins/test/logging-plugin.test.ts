import { describe, expect, it } from "@jest/globals";
import { FunctionTool, InMemoryRunner, LlmAgent } from "@agentkit/core";
import { ContentsProbeModel, ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import { LoggingPlugin, type LogRecord } from "../src/index.js";
import { runOnce } from "./helpers.js";

function agentWithTool(
  steps: NonNullable<ConstructorParameters<typeof ScriptedModel>[0]>["steps"],
  execute: (args: { city: string }) => unknown = ({ city }) => ({ city, forecast: "sunny" }),
) {
  const weather = new FunctionTool({
    name: "get_weather",
    description: "Weather",
    parameters: z.object({ city: z.string() }),
    execute: async (args) => execute(args) as Record<string, unknown>,
  });
  return new LlmAgent({
    name: "weather_agent",
    model: new ScriptedModel({ steps }),
    instruction: "Be brief.",
    tools: [weather],
  });
}

describe("LoggingPlugin", () => {
  it("records every lifecycle point of a tool round trip, in order, without changing the run", async () => {
    const records: LogRecord[] = [];
    const agent = agentWithTool([
      ScriptedModel.functionCall("get_weather", { city: "Paris" }, "call-1"),
      ScriptedModel.text("Sunny in Paris."),
    ]);
    const { events, runner } = await runOnce(
      agent,
      [new LoggingPlugin({ sink: (r) => records.push(r) })],
      "Weather in Paris?",
    );
    const points = records.map((r) => r.point);
    expect(points[0]).toBe("user_message");
    expect(points[1]).toBe("run_start");
    expect(points).toEqual(
      expect.arrayContaining([
        "agent_start",
        "before_model",
        "after_model",
        "before_tool",
        "after_tool",
        "event",
        "agent_end",
        "run_end",
      ]),
    );
    expect(points.at(-1)).toBe("run_end");
    expect(points.indexOf("before_tool")).toBeLessThan(points.indexOf("after_tool"));
    expect(points.filter((p) => p === "before_model")).toHaveLength(2);
    const beforeTool = records.find((r) => r.point === "before_tool")!;
    expect(beforeTool.fields).toMatchObject({ tool: "get_weather", callId: "call-1", args: '{"city":"Paris"}' });
    expect(records.find((r) => r.point === "after_tool")!.fields.response).toBe('{"city":"Paris","forecast":"sunny"}');
    expect(
      records.every(
        (r) => r.appName === "plugins_test" && r.userId === "u" && r.invocationId === events[0]!.invocationId,
      ),
    ).toBe(true);
    expect(records.find((r) => r.point === "before_model")!.fields).toMatchObject({
      tools: ["get_weather"],
      systemInstruction: expect.stringContaining("Be brief."),
    });
    expect(events.at(-1)!.content!.parts![0]!.text).toBe("Sunny in Paris.");
    await runner.close();
  });

  it("writes readable text lines by default and JSON lines on request, truncating content", async () => {
    const lines: string[] = [];
    const long = "x".repeat(100);
    const agent = agentWithTool([ScriptedModel.text(long)]);
    await runOnce(agent, [new LoggingPlugin({ write: (l) => lines.push(l), maxContentLength: 10 })], "hi");
    const afterModel = lines.find((l) => l.includes("AFTER MODEL"))!;
    expect(afterModel).toMatch(
      /^\[logging_plugin\] AFTER MODEL app=plugins_test session=\S+ invocation=\S+ agent=weather_agent content=/,
    );
    expect(afterModel).toContain("xxxxxxxxxx… (90 more chars)");
    expect(afterModel).not.toContain(long);

    const json: string[] = [];
    await runOnce(
      agentWithTool([ScriptedModel.text("ok")]),
      [new LoggingPlugin({ write: (l) => json.push(l), format: "json" })],
      "hi",
    );
    const parsed = json.map((l) => JSON.parse(l) as { point: string; time: string });
    expect(parsed.map((p) => p.point)).toContain("event");
    expect(Number.isNaN(Date.parse(parsed[0]!.time))).toBe(false);
  });

  it("hides content when includeContent is false", async () => {
    const records: LogRecord[] = [];
    const agent = agentWithTool([
      ScriptedModel.functionCall("get_weather", { city: "Secretville" }),
      ScriptedModel.text("classified answer"),
    ]);
    await runOnce(
      agent,
      [new LoggingPlugin({ sink: (r) => records.push(r), includeContent: false })],
      "my secret question",
    );
    const all = JSON.stringify(records);
    expect(all).not.toContain("Secretville");
    expect(all).not.toContain("classified answer");
    expect(all).not.toContain("my secret question");
    expect(records.find((r) => r.point === "before_tool")!.fields.args).toBe("[hidden]");
  });

  it("logs tool and model errors, and a throwing sink never breaks the run", async () => {
    const records: LogRecord[] = [];
    const agent = agentWithTool(
      [ScriptedModel.functionCall("get_weather", { city: "Nowhere" }), ScriptedModel.text("Sorry.")],
      () => {
        throw new Error("weather service down");
      },
    );
    await runOnce(agent, [new LoggingPlugin({ sink: (r) => records.push(r) })], "hi");
    expect(records.find((r) => r.point === "tool_error")!.fields).toMatchObject({
      tool: "get_weather",
      error: "weather service down",
    });

    const failing = agentWithTool([{ error: new Error("model exploded") }]);
    const modelRecords: LogRecord[] = [];
    const failed = await runOnce(failing, [new LoggingPlugin({ sink: (r) => modelRecords.push(r) })], "hi");
    expect(failed.events.at(-1)!.errorMessage).toBe("model exploded");
    expect(modelRecords.find((r) => r.point === "event" && r.fields.errorMessage === "model exploded")).toBeDefined();
    expect(modelRecords.find((r) => r.point === "model_error")!.fields.error).toBe("model exploded");

    const stderr = process.stderr.write;
    const errors: string[] = [];
    process.stderr.write = ((chunk: string) => {
      errors.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const { events } = await runOnce(
        agentWithTool([ScriptedModel.text("still fine")]),
        [
          new LoggingPlugin({
            sink: () => {
              throw new Error("disk full");
            },
          }),
        ],
        "hi",
      );
      expect(events.at(-1)!.content!.parts![0]!.text).toBe("still fine");
    } finally {
      process.stderr.write = stderr;
    }
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain("disk full");
  });

  it("logs which model answered, the models given up on, and the invocation's usage", async () => {
    const records: LogRecord[] = [];
    const agent = agentWithTool([
      ScriptedModel.text("Hi.", {
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, totalTokenCount: 15 },
        // What a FallbackModel writes when its backup answered.
        customMetadata: {
          "agentkit:model": "gpt-4o-mini",
          "agentkit:failover": [{ model: "gemini-2.5-flash", code: "RATE_LIMIT" }],
        },
      }),
    ]);
    await runOnce(agent, [new LoggingPlugin({ sink: (r) => records.push(r) })], "Hello");
    expect(records.find((r) => r.point === "after_model")!.fields).toMatchObject({
      model: "gpt-4o-mini",
      failover: [{ model: "gemini-2.5-flash", code: "RATE_LIMIT" }],
    });
    const event = records.find((r) => r.point === "event")!;
    expect(event.fields.usageRollup).toMatchObject({
      invocation: { modelCalls: 1, tokens: { total: 15 }, models: { "gpt-4o-mini": { modelCalls: 1 } } },
    });
  });

  it("reads a long session's history where it is: a model that only reads gets the one shared array", async () => {
    const model = new ContentsProbeModel();
    const records: LogRecord[] = [];
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model }),
      appName: "app",
      plugins: [new LoggingPlugin({ sink: (r) => records.push(r) })],
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    for (let turn = 1; turn <= 12; turn++) {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: `question ${turn}` }))
        void _;
    }
    // Past the 16 events from which the runner shares a session's history, no call copied it.
    expect(new Set(model.requests.slice(9).map((r) => r.contents)).size).toBe(1);
    const last = records.filter((r) => r.point === "before_model").at(-1)!;
    expect(last.fields).toMatchObject({ contents: 23, lastContent: expect.stringContaining("question 12") });
    await runner.close();
  });
});
