import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { getTextOf, InMemoryRunner, LlmAgent, type Event } from "@agentkit/core";
import { createModelRegistry, ErrorCategory } from "../src/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";

let server: FakeOpenAIServer;
let baseURL: string;

beforeEach(async () => {
  server = new FakeOpenAIServer();
  baseURL = await server.start();
});
afterEach(async () => {
  await server.close();
});

async function run(modelName: string, registry: ReturnType<typeof createModelRegistry>): Promise<Event[]> {
  const agent = new LlmAgent({ name: "helper", model: modelName, instruction: "Be brief." });
  const runner = new InMemoryRunner({ agent, appName: "app", modelRegistry: registry });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const events: Event[] = [];
  try {
    for await (const event of runner.runAsync({ userId: "u", sessionId: "s", newMessage: "Hi" })) events.push(event);
  } finally {
    await runner.close();
    await registry.close();
  }
  return events;
}

describe("createModelRegistry in a run", () => {
  it("resolves an agent's model name, retries a 429 with Retry-After, and answers", async () => {
    server.reply(
      {
        kind: "json",
        status: 429,
        headers: { "retry-after-ms": "5" },
        body: { error: { message: "slow down", type: "rate_limit_error" } },
      },
      { kind: "json", body: completion({ content: "Hello!" }) },
    );
    const waits: number[] = [];
    const registry = createModelRegistry({
      env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: baseURL },
      retry: { onRetry: (e) => waits.push(e.delayMs) },
    });
    const events = await run("gpt-4o-mini", registry);
    expect(getTextOf(events.at(-1)!.content)).toBe("Hello!");
    expect(waits).toEqual([5]);
    expect(server.requests).toHaveLength(2);
  });

  it("turns a non-retryable provider failure into an error event with the category as errorCode", async () => {
    server.reply({
      kind: "json",
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    });
    const registry = createModelRegistry({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: baseURL } });
    const events = await run("openai/gpt-4o-mini", registry);
    const last = events.at(-1)!;
    expect(last.errorCode).toBe(ErrorCategory.CONTEXT_LENGTH);
    expect(last.errorMessage).toContain("maximum context length");
    expect(server.requests).toHaveLength(1);
  });
});
