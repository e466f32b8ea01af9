import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { FunctionTool, getTextOf, InMemoryRunner, LlmAgent, StreamingMode, type Event } from "@agentkit/core";
import { z } from "zod";
import { Gemini } from "../src/gemini/index.js";
import { FakeGeminiServer, sseFixture } from "./fixtures/gemini-server.js";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

const sse = (chunks: unknown[]) => ({ kind: "sse" as const, chunks });
const chunk = (parts: unknown[], finishReason?: string) => ({
  candidates: [{ content: { role: "model", parts }, index: 0, ...(finishReason ? { finishReason } : {}) }],
  usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 6, totalTokenCount: 36 },
  modelVersion: "gemini-2.5-flash",
});

async function run(runner: InMemoryRunner, text: string, streamingMode: StreamingMode): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of runner.runAsync({
    userId: "u",
    sessionId: "s",
    newMessage: text,
    runConfig: { streamingMode, autoCreateSession: true },
  }))
    events.push(event);
  return events;
}

describe("Gemini in a run (LlmAgent + InMemoryRunner)", () => {
  it("runs a streamed tool round trip and sends the thought signature back on the next turn", async () => {
    server.reply(
      { kind: "raw-sse", body: sseFixture("stream-function-call-no-id.sse") },
      sse([chunk([{ text: "It is 4 °C " }]), chunk([{ text: "in Oslo." }], "STOP")]),
    );
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    let calls = 0;
    const weather = new FunctionTool({
      name: "get_weather",
      description: "Current weather of a city",
      parameters: z.object({ city: z.string() }),
      execute: ({ city }) => {
        calls++;
        return { city, celsius: 4 };
      },
    });
    const agent = new LlmAgent({
      name: "forecaster",
      model,
      instruction: "Answer weather questions.",
      tools: [weather],
      generateContentConfig: { thinkingConfig: { includeThoughts: true } },
    });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const events = await run(runner, "Weather in Oslo?", StreamingMode.SSE);
    await runner.close();
    await model.close();

    expect(calls).toBe(1);
    const final = events.at(-1)!;
    expect(final.partial).toBeFalsy();
    expect(getTextOf(final.content)).toBe("It is 4 °C in Oslo.");
    expect(events.filter((e) => e.partial).map((e) => getTextOf(e.content))).toEqual(["It is 4 °C ", "in Oslo."]);

    // The flow gave the id-less call an adk- id; Gemini never sees it.
    const callEvent = events.find((e) => e.content?.parts?.some((p) => p.functionCall))!;
    expect(callEvent.content!.parts![0]!.functionCall!.id).toMatch(/^adk-/);

    const [first, second] = server.generateRequests;
    expect(first!.path).toContain(":streamGenerateContent?alt=sse");
    expect(first!.body.systemInstruction).toMatchObject({
      parts: [{ text: expect.stringContaining("Answer weather questions.") }],
    });
    expect(first!.body.tools).toEqual([
      {
        functionDeclarations: [
          expect.objectContaining({ name: "get_weather", description: "Current weather of a city" }),
        ],
      },
    ]);
    const contents = second!.body.contents as Array<{ role: string; parts: Array<Record<string, unknown>> }>;
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user"]);
    expect(contents[1]!.parts).toEqual([
      { functionCall: { name: "get_weather", args: { city: "Oslo" } }, thoughtSignature: "Ci0BVKhc7sig-stream-fc" },
    ]);
    expect(contents[2]!.parts).toEqual([
      { functionResponse: { name: "get_weather", response: { city: "Oslo", celsius: 4 } } },
    ]);
  });

  it("keeps Gemini's own call ids through the round trip without streaming", async () => {
    server.reply(
      {
        kind: "json",
        body: chunk(
          [
            { text: "thinking", thought: true, thoughtSignature: "sig-A" },
            { functionCall: { id: "fc-9", name: "add", args: { a: 2, b: 3 } } },
          ],
          "STOP",
        ),
      },
      { kind: "json", body: chunk([{ text: "5" }], "STOP") },
    );
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const add = new FunctionTool({
      name: "add",
      description: "Adds",
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => ({ sum: a + b }),
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "calc", model, tools: [add] }), appName: "app" });
    const events = await run(runner, "2+3", StreamingMode.NONE);
    await runner.close();
    expect(getTextOf(events.at(-1)!.content)).toBe("5");
    const contents = server.lastBody.contents as Array<{ parts: Array<Record<string, unknown>> }>;
    expect(contents[1]!.parts).toEqual([
      { text: "thinking", thought: true, thoughtSignature: "sig-A" },
      { functionCall: { id: "fc-9", name: "add", args: { a: 2, b: 3 } } },
    ]);
    expect(contents[2]!.parts).toEqual([{ functionResponse: { id: "fc-9", name: "add", response: { sum: 5 } } }]);
  });

  it("turns a 403 into an error event with errorCode instead of crashing the run", async () => {
    server.reply({
      kind: "json",
      status: 403,
      body: { error: { code: 403, message: "API key not valid.", status: "PERMISSION_DENIED" } },
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "bad", baseUrl });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "a", model }), appName: "app" });
    const events = await run(runner, "hi", StreamingMode.NONE).catch((e: unknown) => e);
    await runner.close();
    expect(Array.isArray(events)).toBe(true);
    expect((events as Event[]).at(-1)).toMatchObject({ errorCode: "AUTH_ERROR" });
  });
});
