import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { ConfigurationError, createLlmRequest, getTextOf, type BaseLlm, type LlmResponse } from "@agentkit/core";
import { createModelRegistry, LazyModel, RetryingModel } from "../src/index.js";
import { ProxyModel } from "../src/proxy/index.js";
import { candidateResponse, errorReply, FakeGeminiServer } from "./fixtures/gemini-server.js";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

async function collect(model: BaseLlm, stream = false): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const r of model.generateContentAsync(
    createLlmRequest({ contents: [{ role: "user", parts: [{ text: "Hi" }] }] }),
    stream,
  ))
    out.push(r);
  return out;
}

const noWait = async (_ms: number, signal?: AbortSignal) => signal?.throwIfAborted();

describe("registry gemini-* entry", () => {
  it("builds a lazy Gemini from the environment and retries a 429 through RetryingModel", async () => {
    server.reply(errorReply(429, "RESOURCE_EXHAUSTED", "slow down", { headers: { "retry-after": "0" } }), {
      kind: "json",
      body: candidateResponse([{ text: "from registry" }]),
    });
    const registry = createModelRegistry({
      env: { GEMINI_API_KEY: "env-key", GOOGLE_GEMINI_BASE_URL: baseUrl },
      retry: { sleep: noWait },
    });
    const model = registry.resolve("gemini-2.5-flash");
    expect(model).toBeInstanceOf(RetryingModel);
    expect((model as RetryingModel).inner).toBeInstanceOf(LazyModel);
    expect(getTextOf((await collect(model)).at(-1)!.content)).toBe("from registry");
    expect(server.generateRequests.map((r) => r.path)).toEqual([
      "/v1beta/models/gemini-2.5-flash:generateContent",
      "/v1beta/models/gemini-2.5-flash:generateContent",
    ]);
    expect(server.requests[0]!.headers["x-goog-api-key"]).toBe("env-key");
    await model.close();
  });

  it("takes explicit registry options over the environment", async () => {
    server.reply({ kind: "json", body: candidateResponse([{ text: "ok" }]) });
    const registry = createModelRegistry({
      env: { GEMINI_API_KEY: "env-key" },
      gemini: { apiKey: "opt-key", baseURL: baseUrl, headers: { "x-app": "a" } },
    });
    await collect(registry.resolve("gemini-2.5-pro"));
    expect(server.requests[0]!.headers).toMatchObject({ "x-goog-api-key": "opt-key", "x-app": "a" });
  });

  it("fails with a ConfigurationError naming the variables when no credentials are set (not retried)", async () => {
    let retries = 0;
    const registry = createModelRegistry({ env: {}, retry: { sleep: noWait, onRetry: () => retries++ } });
    const error = await collect(registry.resolve("gemini-2.5-flash")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/GOOGLE_API_KEY.*GEMINI_API_KEY/);
    expect(retries).toBe(0);
  });
});

describe("ProxyModel wireFormat gemini", () => {
  it("speaks the Gemini REST protocol to the gateway with its headers, streaming and not", async () => {
    server.reply(
      { kind: "json", body: candidateResponse([{ text: "via gateway" }]) },
      {
        kind: "sse",
        chunks: [candidateResponse([{ text: "str" }], { finishReason: "" }), candidateResponse([{ text: "eamed" }])],
      },
    );
    const model = new ProxyModel({
      model: "gemini-2.5-flash",
      baseURL: baseUrl,
      wireFormat: "gemini",
      headers: { "x-gateway-key": "gw" },
    });
    expect(getTextOf((await collect(model)).at(-1)!.content)).toBe("via gateway");
    const streamed = await collect(model, true);
    expect(getTextOf(streamed.at(-1)!.content)).toBe("streamed");
    expect(server.requests.map((r) => r.headers["x-gateway-key"])).toEqual(["gw", "gw"]);
    expect(server.requests[0]!.headers["x-goog-api-key"]).toBe("proxy");
    await model.close();
  });
});

describe("importing @agentkit/models", () => {
  const run = promisify(execFile);
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-gemini-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Imports a module in a fresh Node process and lists the @google/genai specifiers it resolved. */
  async function genaiImports(entry: string, resolveNames: boolean): Promise<string[]> {
    const probe = join(dir, "probe.mjs");
    await writeFile(
      probe,
      `import { registerHooks } from "node:module";
const seen = [];
registerHooks({ resolve(spec, ctx, next) { seen.push(spec); return next(spec, ctx); } });
const m = await import(${JSON.stringify(entry)});
if (${resolveNames}) m.createModelRegistry().resolve("gemini-2.5-flash");
console.log(JSON.stringify(seen.filter((s) => s.startsWith("@google/genai"))));
`,
    );
    const { stdout } = await run(process.execPath, ["--conditions=@agentkit/source", "--import", "tsx", probe], {
      cwd: process.cwd(),
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as string[];
  }

  it("does not load @google/genai, even after resolving a gemini-* name", async () => {
    expect(await genaiImports(join(process.cwd(), "src/index.ts"), true)).toEqual([]);
  });

  it("(control) the gemini subpath does load it", async () => {
    expect(await genaiImports(join(process.cwd(), "src/gemini/index.ts"), false)).toContain("@google/genai");
  });
});
