import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, createLlmRequest, type LlmResponse } from "@agentkit/core";
import { createModelRegistry, FallbackModel, LazyModel, type RetryingModel } from "../src/index.js";
import { OpenAIModel } from "../src/openai/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";

describe("warmUp", () => {
  it("loads a registry model's adapter and builds its client without calling the provider", async () => {
    const server = new FakeOpenAIServer();
    const baseURL = await server.start();
    const registry = createModelRegistry({ env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: baseURL } });
    try {
      const model = registry.resolve("gpt-4o");
      const lazy = (model as RetryingModel).inner as LazyModel;
      expect(lazy.loaded).toBe(false);
      await model.warmUp();
      expect(lazy.loaded).toBe(true);
      expect(await lazy.getModel()).toBeInstanceOf(OpenAIModel);
      expect(server.requests).toHaveLength(0);

      // The warmed model serves the first call as any later one.
      server.reply({ kind: "json", body: completion({ content: "hello" }) });
      const out: LlmResponse[] = [];
      const request = createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
      for await (const r of model.generateContentAsync(request)) out.push(r);
      expect(out.at(-1)?.content?.parts?.[0]?.text).toBe("hello");
      expect(server.requests).toHaveLength(1);
    } finally {
      await registry.close();
      await server.close();
    }
  });

  it("reports a missing API key at warm-up (a typed error) and does not cache the failure", async () => {
    const saved = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
    try {
      const model = new OpenAIModel({ model: "gpt-4o" });
      await expect(model.warmUp()).rejects.toBeInstanceOf(ConfigurationError);
      process.env.OPENAI_API_KEY = "sk-later";
      await expect(model.warmUp()).resolves.toBeUndefined();
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
    }
  });

  it("a FallbackModel warms every model it wraps, and reports a failure of any", async () => {
    const warmed: string[] = [];
    const lazy = (name: string, fail = false) =>
      new LazyModel(name, async () => {
        if (fail) throw new ConfigurationError(`${name} cannot load`);
        warmed.push(name);
        return new OpenAIModel({ model: name, apiKey: "sk-test" });
      });
    await new FallbackModel([lazy("gpt-a"), lazy("gpt-b")]).warmUp();
    expect(warmed.sort()).toEqual(["gpt-a", "gpt-b"]);
    await expect(new FallbackModel([lazy("gpt-c"), lazy("gpt-d", true)]).warmUp()).rejects.toThrow("gpt-d cannot load");
    expect(warmed).toContain("gpt-c");
  });
});
