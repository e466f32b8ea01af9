import { afterEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest, type LlmResponse } from "@agentkit/core";
import { ProxyModel, type ProxyModelOptions } from "../src/proxy/index.js";
import { chunk, completion, FakeOpenAIServer } from "./fixtures/openai-server.js";
import { FakeAnthropicServer, message, streamEvents } from "./fixtures/anthropic-server.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const ask = createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });

async function collect(model: ProxyModel, stream = false): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(ask, stream)) out.push(response);
  return out;
}

function proxy(options: ProxyModelOptions): ProxyModel {
  const model = new ProxyModel(options);
  closers.push(() => model.close());
  return model;
}

describe("ProxyModel", () => {
  it("speaks the OpenAI wire format through the gateway with its headers (default format)", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await server.start();
    closers.push(() => server.close());
    server.reply({ kind: "json", body: completion({ role: "assistant", content: "via gateway" }) });
    server.reply({
      kind: "sse",
      chunks: [chunk({ content: "a" }), chunk({ content: "b" }), chunk({}, { finishReason: "stop" })],
    });
    const model = proxy({ model: "gpt-x", baseURL, headers: { "x-gateway-key": "gk-1" } });
    const [response] = await collect(model);
    expect(response!.content).toEqual({ role: "model", parts: [{ text: "via gateway" }] });
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(req.headers["x-gateway-key"]).toBe("gk-1");
    expect(req.headers.authorization).toBe("Bearer proxy");
    const streamed = await collect(model, true);
    expect(streamed.filter((r) => r.partial).map((r) => r.content?.parts?.[0]?.text)).toEqual(["a", "b"]);
    expect(streamed.at(-1)!.content?.parts?.[0]?.text).toBe("ab");
  });

  it("speaks the Anthropic wire format with the api key and headers, streaming too", async () => {
    const server = new FakeAnthropicServer();
    const baseURL = await server.start();
    closers.push(() => server.close());
    server.reply({ kind: "json", body: message([{ type: "text", text: "claude here", citations: null }]) });
    server.reply({ kind: "sse", events: streamEvents([{ type: "text", chunks: ["x", "y"] }], "end_turn") });
    const model = proxy({
      model: "claude-x",
      baseURL,
      wireFormat: "anthropic",
      apiKey: "k1",
      headers: { "x-team": "t" },
    });
    const [response] = await collect(model);
    expect(response!.content).toEqual({ role: "model", parts: [{ text: "claude here" }] });
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/messages");
    expect(req.headers["x-team"]).toBe("t");
    expect(req.headers.authorization).toBe("Bearer k1");
    const streamed = await collect(model, true);
    expect(streamed.filter((r) => r.partial).map((r) => r.content?.parts?.[0]?.text)).toEqual(["x", "y"]);
    expect(streamed.at(-1)!.content?.parts?.[0]?.text).toBe("xy");
  });

  it("refuses a missing baseURL", () => {
    expect(() => new ProxyModel({ model: "m" } as unknown as ProxyModelOptions)).toThrow(ConfigurationError);
  });
});
