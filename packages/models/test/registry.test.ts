import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ConfigurationError, createLlmRequest, ModelRegistry, type BaseLlm, type LlmResponse } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  createModelRegistry,
  DEFAULT_OLLAMA_BASE_URL,
  ErrorCategory,
  LazyModel,
  openAICompatibleEndpoint,
  RetryingModel,
} from "../src/index.js";
import { FakeOpenAIServer, completion } from "./fixtures/openai-server.js";
import { FakeAnthropicServer, message } from "./fixtures/anthropic-server.js";

const noWait = async (_ms: number, signal?: AbortSignal) => signal?.throwIfAborted();

async function collect(model: BaseLlm): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  const request = createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] });
  for await (const r of model.generateContentAsync(request)) out.push(r);
  return out;
}

const textOf = (responses: LlmResponse[]) =>
  responses
    .at(-1)
    ?.content?.parts?.map((p) => p.text ?? "")
    .join("");

describe("createModelRegistry: patterns", () => {
  const registry = createModelRegistry();

  it.each([
    "gpt-4o",
    "gpt-4.1-mini",
    "o1",
    "o3-mini",
    "o4-mini",
    "openai/gpt-4o",
    "claude-sonnet-4-5",
    "anthropic/claude-3-haiku",
    "ollama/llama3.2",
    "openai-compatible/qwen",
    "gemini-2.5-flash",
  ])("knows %s", (name) => {
    expect(registry.has(name)).toBe(true);
    const model = registry.resolve(name);
    expect(model).toBeInstanceOf(RetryingModel);
    expect(model.model).toBe(name);
  });

  it.each(["mistral-large", "omni", "gpt4", "llama3", "claude"])("does not know %s", (name) => {
    expect(registry.has(name)).toBe(false);
  });

  it("names every default pattern when a name is unknown", () => {
    expect(() => registry.resolve("mistral-large")).toThrow(ConfigurationError);
    let message = "";
    try {
      registry.resolve("mistral-large");
    } catch (error) {
      message = (error as Error).message;
    }
    for (const pattern of [
      "/^gpt-/",
      "/^o\\d/",
      "/^openai\\//",
      "/^claude-/",
      "/^anthropic\\//",
      "/^ollama\\//",
      "/^openai-compatible\\//",
      "/^gemini-/",
    ]) {
      expect(message).toContain(pattern);
    }
    expect(message).toContain("mistral-large");
  });

  it("returns a plain ModelRegistry that accepts custom patterns", async () => {
    const custom = createModelRegistry();
    expect(custom).toBeInstanceOf(ModelRegistry);
    const scripted = new ScriptedModel({ model: "my-model", steps: [ScriptedModel.text("custom")] });
    custom.register(/^my-/, () => scripted);
    expect(textOf(await collect(custom.resolve("my-model")))).toBe("custom");
  });

  it("can turn retries off", () => {
    expect(createModelRegistry({ retry: false }).resolve("gpt-4o")).toBeInstanceOf(LazyModel);
  });
});

describe("LazyModel", () => {
  it("loads the real model on first use only, once, and closes it", async () => {
    let loads = 0;
    let closed = 0;
    const inner = new (class extends ScriptedModel {
      override async close() {
        closed++;
      }
    })({ steps: [ScriptedModel.text("one"), ScriptedModel.text("two")] });
    const lazy = new LazyModel("x", async () => {
      loads++;
      return inner;
    });
    expect(lazy.loaded).toBe(false);
    expect(loads).toBe(0);
    expect(textOf(await collect(lazy))).toBe("one");
    expect(textOf(await collect(lazy))).toBe("two");
    expect(loads).toBe(1);
    await lazy.close();
    expect(closed).toBe(1);
  });

  it("does not load a model just to close it, and retries a failed load", async () => {
    let loads = 0;
    const lazy = new LazyModel("x", async () => {
      if (++loads === 1) throw new Error("not yet");
      return new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    });
    await lazy.close();
    expect(loads).toBe(0);
    await expect(collect(lazy)).rejects.toThrow("not yet");
    expect(textOf(await collect(lazy))).toBe("ok");
    expect(loads).toBe(2);
  });
});

describe("registry models against local fake servers", () => {
  let openai: FakeOpenAIServer;
  let registry: ReturnType<typeof createModelRegistry> | undefined;

  beforeEach(() => {
    openai = new FakeOpenAIServer();
  });
  afterEach(async () => {
    await registry?.close();
    registry = undefined;
    await openai.close();
  });

  it("gpt-* talks to OPENAI_BASE_URL with OPENAI_API_KEY and retries a 503 before output", async () => {
    const baseURL = await openai.start();
    openai.reply(
      { kind: "json", status: 503, body: { error: { message: "busy", type: "server_error" } } },
      { kind: "json", body: completion({ content: "Hello" }) },
    );
    const retries: string[] = [];
    registry = createModelRegistry({
      env: { OPENAI_API_KEY: "sk-env", OPENAI_BASE_URL: baseURL },
      retry: { sleep: noWait, onRetry: (e) => retries.push(e.error.category) },
    });
    const responses = await collect(registry.resolve("openai/gpt-4o-mini"));
    expect(textOf(responses)).toBe("Hello");
    expect(retries).toEqual([ErrorCategory.SERVER_ERROR]);
    expect(openai.requests).toHaveLength(2);
    expect(openai.requests[1]!.headers.authorization).toBe("Bearer sk-env");
    expect(openai.lastBody.model).toBe("gpt-4o-mini");
  });

  it("gpt-* surfaces a 401 as AUTH_ERROR without retrying", async () => {
    const baseURL = await openai.start();
    openai.reply({
      kind: "json",
      status: 401,
      body: { error: { message: "Incorrect API key", type: "invalid_request_error" } },
    });
    registry = createModelRegistry({
      env: { OPENAI_API_KEY: "bad", OPENAI_BASE_URL: baseURL },
      retry: { sleep: noWait },
    });
    await expect(collect(registry.resolve("gpt-4o"))).rejects.toMatchObject({
      category: ErrorCategory.AUTH_ERROR,
      status: 401,
    });
    expect(openai.requests).toHaveLength(1);
  });

  it("ollama/* goes to OLLAMA_HOST + /v1 with the model name unprefixed and the default key", async () => {
    const baseURL = await openai.start();
    openai.reply({ kind: "json", body: completion({ content: "from ollama" }) });
    const host = new URL(baseURL).host; // "127.0.0.1:PORT", as Ollama users set it
    registry = createModelRegistry({ env: { OLLAMA_HOST: host } });
    expect(textOf(await collect(registry.resolve("ollama/llama3.2")))).toBe("from ollama");
    expect(openai.requests[0]!.path).toBe("/v1/chat/completions");
    expect(openai.lastBody.model).toBe("llama3.2");
    expect(openai.requests[0]!.headers.authorization).toBe("Bearer ollama");
  });

  it("claude-* talks to ANTHROPIC_BASE_URL with ANTHROPIC_API_KEY", async () => {
    const anthropic = new FakeAnthropicServer();
    const baseURL = await anthropic.start();
    try {
      anthropic.reply({ kind: "json", body: message([{ type: "text", text: "Hi from Claude" }]) });
      registry = createModelRegistry({ env: { ANTHROPIC_API_KEY: "sk-ant", ANTHROPIC_BASE_URL: baseURL } });
      expect(textOf(await collect(registry.resolve("claude-sonnet-4-5")))).toBe("Hi from Claude");
      expect(anthropic.requests[0]!.headers.authorization).toBe("Bearer sk-ant"); // SDK 1.x sends the key as a bearer token
      expect(anthropic.requests[0]!.body.model).toBe("claude-sonnet-4-5");
    } finally {
      await registry?.close();
      await anthropic.close();
    }
  });
});

describe("openAICompatibleEndpoint", () => {
  it("defaults to local Ollama", () => {
    expect(openAICompatibleEndpoint("ollama/x", {}, {})).toEqual({
      baseURL: DEFAULT_OLLAMA_BASE_URL,
      apiKey: "ollama",
    });
    expect(DEFAULT_OLLAMA_BASE_URL).toBe("http://127.0.0.1:11434/v1");
  });

  it("normalises OLLAMA_HOST (host:port or URL, trailing slash, existing /v1)", () => {
    const url = (host: string) => openAICompatibleEndpoint("ollama/x", {}, { OLLAMA_HOST: host }).baseURL;
    expect(url("10.0.0.5:11434")).toBe("http://10.0.0.5:11434/v1");
    expect(url("https://ollama.example:443/")).toBe("https://ollama.example:443/v1");
    expect(url("http://h:1/v1")).toBe("http://h:1/v1");
  });

  it("uses OPENAI_COMPATIBLE_BASE_URL / _API_KEY for openai-compatible/*, explicit settings first", () => {
    const env = {
      OPENAI_COMPATIBLE_BASE_URL: "http://vllm:8000/v1",
      OPENAI_COMPATIBLE_API_KEY: "k",
      OLLAMA_HOST: "o:1",
    };
    expect(openAICompatibleEndpoint("openai-compatible/qwen", {}, env)).toEqual({
      baseURL: "http://vllm:8000/v1",
      apiKey: "k",
    });
    expect(openAICompatibleEndpoint("ollama/x", {}, env).baseURL).toBe("http://o:1/v1");
    expect(openAICompatibleEndpoint("openai-compatible/q", { baseURL: "http://b/v1", apiKey: "a" }, env)).toEqual({
      baseURL: "http://b/v1",
      apiKey: "a",
    });
  });
});

describe("importing @agentkit/models", () => {
  const run = promisify(execFile);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-models-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Imports a module in a fresh Node process and lists the vendor SDK specifiers it resolved. */
  async function vendorImports(entry: string, resolveNames: boolean): Promise<string[]> {
    const probe = join(dir, "probe.mjs");
    await writeFile(
      probe,
      `import { registerHooks } from "node:module";
const seen = [];
registerHooks({ resolve(spec, ctx, next) { seen.push(spec); return next(spec, ctx); } });
const m = await import(${JSON.stringify(entry)});
if (${resolveNames}) { const r = m.createModelRegistry(); for (const n of ["gpt-4o", "claude-sonnet-4-5", "ollama/x"]) r.resolve(n); }
console.log(JSON.stringify(seen.filter((s) => s === "openai" || s.startsWith("openai/") || s.startsWith("@anthropic-ai/"))));
`,
    );
    const { stdout } = await run(process.execPath, ["--conditions=@agentkit/source", "--import", "tsx", probe], {
      cwd: process.cwd(),
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as string[];
  }

  it("loads no vendor SDK, even after resolving model names", async () => {
    expect(await vendorImports(join(process.cwd(), "src/index.ts"), true)).toEqual([]);
  });

  it("(control) the openai subpath does load the SDK, so the probe can see it", async () => {
    expect(await vendorImports(join(process.cwd(), "src/openai/index.ts"), false)).toContain("openai");
  });
});
