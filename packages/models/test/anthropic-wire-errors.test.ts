import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { createLlmRequest, getTextOf, type LlmResponse } from "@agentkit/core";
import { AnthropicModel } from "../src/anthropic/index.js";
import { ProviderError } from "../src/errors/provider-error.js";
import { FakeAnthropicServer, streamEvents } from "./fixtures/anthropic-server.js";
import { recordedReply } from "./fixtures/recorded-fixtures.js";

let server: FakeAnthropicServer;
let model: AnthropicModel;

beforeEach(async () => {
  server = new FakeAnthropicServer();
  model = new AnthropicModel({ model: "claude-test", apiKey: "sk-test", baseURL: await server.start() });
});
afterEach(async () => {
  await model.close();
  await server.close();
});

const hi = () => createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

async function run(stream: boolean, seen: LlmResponse[] = []): Promise<ProviderError> {
  const error = await (async () => {
    for await (const r of model.generateContentAsync(hi(), stream)) seen.push(r);
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderError);
  return error as ProviderError;
}

describe("AnthropicModel wire errors", () => {
  it("maps a connection dropped mid-stream (socket destroyed) to a retryable NETWORK error after the partials", async () => {
    const events = streamEvents([{ type: "text", chunks: ["one ", "two"] }], "end_turn").slice(0, 4);
    server.reply({ kind: "sse", events, drop: true });
    const seen: LlmResponse[] = [];
    const error = await run(true, seen);
    expect(error).toMatchObject({ category: "NETWORK", retryable: true, provider: "anthropic" });
    expect(seen.map((r) => [r.partial, getTextOf(r.content)])).toEqual([
      [true, "one "],
      [true, "two"],
    ]);
    expect(server.requests).toHaveLength(1);
  });

  it("maps a 500 (__fixtures__/anthropic/error-500-api-error.json) to a retryable SERVER_ERROR after one attempt", async () => {
    server.reply(recordedReply("anthropic/error-500-api-error.json", { status: 500 }));
    const error = await run(false);
    expect(error).toMatchObject({ category: "SERVER_ERROR", retryable: true, status: 500 });
    expect(error.message).toContain("Internal server error");
    expect(server.requests).toHaveLength(1);
  });

  it("maps a 400 that is not about context length (__fixtures__/anthropic/error-400-invalid-request.json) to a final CLIENT_ERROR", async () => {
    server.reply(recordedReply("anthropic/error-400-invalid-request.json", { status: 400 }));
    const error = await run(true);
    expect(error).toMatchObject({ category: "CLIENT_ERROR", retryable: false, status: 400 });
    expect(error.message).toContain("tool_use_id: Field required");
    expect(server.requests).toHaveLength(1);
  });
});
