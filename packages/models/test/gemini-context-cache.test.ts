import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import {
  createLlmRequest,
  type Content,
  type ContextCacheConfig,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { GoogleGenAI, type GoogleGenAIOptions } from "@google/genai";
import { Gemini, type GeminiCacheMetadata } from "../src/gemini/index.js";
import { GeminiContextCache } from "../src/gemini/context-cache.js";
import { createGeminiFetch } from "../src/gemini/gemini-fetch.js";
import { toGeminiRequest } from "../src/gemini/request-conversion.js";
import { candidateResponse, FakeGeminiServer, googleError } from "./fixtures/gemini-server.js";

let server: FakeGeminiServer;
let baseUrl: string;

beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

const tools = [{ functionDeclarations: [{ name: "lookup", description: "Looks up a record" }] }];
const system = "You are a records clerk. ".repeat(20);

/** A conversation of `turns` user/model exchanges followed by a new user message. */
function conversation(turns: number): Content[] {
  const contents: Content[] = [];
  for (let i = 0; i < turns; i++) {
    contents.push(
      { role: "user", parts: [{ text: `question ${i}` }] },
      { role: "model", parts: [{ text: `answer ${i}` }] },
    );
  }
  contents.push({ role: "user", parts: [{ text: `question ${turns}` }] });
  return contents;
}

function request(turns: number, cacheConfig: ContextCacheConfig, extra: Partial<LlmRequest> = {}): LlmRequest {
  return createLlmRequest({
    contents: conversation(turns),
    config: { systemInstruction: system, tools },
    cacheConfig,
    ...extra,
  });
}

async function call(model: Gemini, req: LlmRequest): Promise<LlmResponse> {
  server.reply({
    kind: "json",
    body: candidateResponse([{ text: "ok" }], {
      usage: { promptTokenCount: 900, candidatesTokenCount: 2, totalTokenCount: 902, cachedContentTokenCount: 850 },
    }),
  });
  let last: LlmResponse | undefined;
  for await (const r of model.generateContentAsync(req)) last = r;
  return last!;
}

const creates = () => server.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1beta/cachedContents"));

describe("Gemini context caching", () => {
  it("creates a cache of the conversation prefix, then sends only the uncached tail", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const config = { ttlSeconds: 600, cacheIntervals: 5 };

    const first = await call(model, request(0, config));
    expect(creates()).toHaveLength(0);
    expect(first.cacheMetadata).toMatchObject({ contentsCount: 0, invocationsUsed: 0 });
    expect(server.lastBody.cachedContent).toBeUndefined();

    const second = await call(model, request(1, config));
    expect(creates()).toHaveLength(1);
    const created = creates()[0]!.body;
    expect(created).toMatchObject({
      model: "models/gemini-2.5-flash",
      ttl: "600s",
      systemInstruction: { parts: [{ text: system }], role: "user" },
      tools,
      contents: [
        { role: "user", parts: [{ text: "question 0" }] },
        { role: "model", parts: [{ text: "answer 0" }] },
      ],
    });
    const meta = second.cacheMetadata as unknown as GeminiCacheMetadata;
    expect(meta).toMatchObject({
      cacheName: "cachedContents/cache-1",
      contentsCount: 2,
      invocationsUsed: 1,
      promptTokenCount: 900,
    });
    expect(meta.expireTime! - Date.now()).toBeGreaterThan(590_000);
    expect(second.usageMetadata?.cachedContentTokenCount).toBe(850);
    expect(server.lastBody).toMatchObject({
      cachedContent: "cachedContents/cache-1",
      contents: [{ role: "user", parts: [{ text: "question 1" }] }],
    });
    expect(server.lastBody.systemInstruction).toBeUndefined();
    expect(server.lastBody.tools).toBeUndefined();

    const third = await call(model, request(2, config));
    expect(creates()).toHaveLength(1);
    expect(third.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-1", invocationsUsed: 2 });
    expect(server.lastBody.cachedContent).toBe("cachedContents/cache-1");
    expect((server.lastBody.contents as Content[]).map((c) => c.parts![0]!.text)).toEqual([
      "question 1",
      "answer 1",
      "question 2",
    ]);
  });

  it("refreshes the cache after cacheIntervals uses and deletes the old one", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const config = { cacheIntervals: 2 };
    await call(model, request(1, config));
    await call(model, request(2, config));
    const third = await call(model, request(3, config));
    expect(creates()).toHaveLength(2);
    expect(server.deletedCaches).toEqual(["cachedContents/cache-1"]);
    expect(third.cacheMetadata).toMatchObject({
      cacheName: "cachedContents/cache-2",
      contentsCount: 6,
      invocationsUsed: 1,
    });
    expect(creates()[1]!.body.ttl).toBe("1800s");
  });

  it("replaces an expired cache named by request.cacheMetadata, and reuses a live one across model instances", async () => {
    const a = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const made = await call(a, request(1, {}));
    const meta = made.cacheMetadata!;

    const b = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const reused = await call(b, request(2, {}, { cacheMetadata: meta }));
    expect(reused.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-1", invocationsUsed: 2 });
    expect(creates()).toHaveLength(1);

    const expired = { ...reused.cacheMetadata!, expireTime: Date.now() - 1000 };
    const c = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const refreshed = await call(c, request(2, {}, { cacheMetadata: expired }));
    expect(refreshed.cacheMetadata).toMatchObject({
      cacheName: "cachedContents/cache-2",
      invocationsUsed: 1,
      contentsCount: 4,
    });
    expect(server.deletedCaches).toEqual(["cachedContents/cache-1"]);
  });

  it("does not cache below minTokens (request estimate from cacheableContentsTokenCount)", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const small = await call(model, request(2, { minTokens: 4096 }, { cacheableContentsTokenCount: 1000 }));
    expect(creates()).toHaveLength(0);
    expect(small.cacheMetadata).toMatchObject({ contentsCount: 0 });
    expect(server.lastBody.systemInstruction).toBeDefined();

    await call(model, request(2, { minTokens: 4096 }, { cacheableContentsTokenCount: 5000 }));
    expect(creates()).toHaveLength(1);
  });

  it("starts a new cache when the system instruction changes (fingerprint mismatch)", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const first = await call(model, request(1, {}));
    const changed = request(2, {}, { cacheMetadata: first.cacheMetadata! });
    changed.config.systemInstruction = "Different instruction.";
    const second = await call(model, changed);
    expect(creates()).toHaveLength(2);
    expect(second.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-2" });
    expect(server.deletedCaches).toEqual(["cachedContents/cache-1"]);
  });

  it("runs uncached and reports the reason when cache creation fails", async () => {
    server.cacheCreateReplies.push({
      kind: "json",
      status: 400,
      body: googleError(
        400,
        "INVALID_ARGUMENT",
        "Cached content is too small. total_token_count=120, min_total_token_count=1024",
      ),
    });
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const response = await call(model, request(1, {}));
    expect(response.content?.parts?.[0]?.text).toBe("ok");
    expect(response.cacheMetadata).toMatchObject({ contentsCount: 0 });
    expect(String(response.cacheMetadata!.lastError)).toMatch(/too small/);
    expect(server.lastBody.cachedContent).toBeUndefined();
    expect(server.lastBody.systemInstruction).toBeDefined();
  });

  it("keeps one cache per conversation when two conversations of the same agent alternate", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const other = (turns: number) => {
      const req = request(turns, {});
      req.contents[0] = { role: "user", parts: [{ text: "a different conversation" }] };
      return req;
    };
    await call(model, request(1, {}));
    await call(model, other(1));
    const a = await call(model, request(2, {}));
    const b = await call(model, other(2));
    expect(creates()).toHaveLength(2);
    expect(server.deletedCaches).toEqual([]);
    expect(a.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-1", invocationsUsed: 2 });
    expect(b.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-2", invocationsUsed: 2 });
  });

  it("replaces a cache the service no longer has (403 CachedContent not found) and answers", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await call(model, request(1, {}));
    server.caches.clear(); // evicted on the service side
    const response = await call(model, request(2, {}));
    expect(response.content?.parts?.[0]?.text).toBe("ok");
    expect(response.cacheMetadata).toMatchObject({
      cacheName: "cachedContents/cache-2",
      contentsCount: 4,
      invocationsUsed: 1,
    });
    const generates = server.generateRequests;
    expect(generates.map((r) => r.body.cachedContent)).toEqual([
      "cachedContents/cache-1",
      "cachedContents/cache-1",
      "cachedContents/cache-2",
    ]);
  });

  it("deletes the caches it created on close()", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    await call(model, request(1, {}));
    expect(server.caches.size).toBe(1);
    await model.close();
    expect(server.caches.size).toBe(0);
    expect(server.deletedCaches).toEqual(["cachedContents/cache-1"]);
  });

  it("does not hold the call on deleting the replaced cache when the service never answers the delete", async () => {
    server.stallCacheDeletes = true;
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    const config = { cacheIntervals: 1 };
    await call(model, request(1, config));
    // Used up after one request: the second one replaces cache-1, whose DELETE is never answered.
    const second = await call(model, request(2, config));
    expect(second.content?.parts?.[0]?.text).toBe("ok");
    expect(second.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-2", invocationsUsed: 1 });
    await server.stalledRequest;
    expect(server.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
      "/v1beta/cachedContents/cache-1",
    ]);
  });

  it("bounds close() by timeoutMs when the service never answers the deletes, and gives them up", async () => {
    server.stallCacheDeletes = true;
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl, timeoutMs: 1_000 });
    const config = { cacheIntervals: 1 };
    await call(model, request(1, config));
    await call(model, request(2, config));
    await server.stalledRequest;
    // Deletes cache-2 and waits for the background delete of cache-1: neither is ever answered.
    await model.close();
    await server.stalledClosed;
    expect(server.requests.filter((r) => r.method === "DELETE").map((r) => r.path)).toEqual([
      "/v1beta/cachedContents/cache-1",
      "/v1beta/cachedContents/cache-2",
    ]);
  });

  it("works in streaming mode too", async () => {
    const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
    server.reply({
      kind: "sse",
      chunks: [
        {
          candidates: [{ content: { role: "model", parts: [{ text: "streamed" }] }, finishReason: "STOP", index: 0 }],
          usageMetadata: { promptTokenCount: 50, cachedContentTokenCount: 40 },
        },
      ],
    });
    const out: LlmResponse[] = [];
    for await (const r of model.generateContentAsync(request(1, {}), true)) out.push(r);
    expect(out.at(-1)!.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-1", promptTokenCount: 50 });
    expect(out.filter((r) => r.partial).every((r) => r.cacheMetadata === undefined)).toBe(true);
    expect(server.lastBody.cachedContent).toBe("cachedContents/cache-1");
  });
});

describe("GeminiContextCache's own record of the caches it made", () => {
  it("forgets caches once they expire, so close() deletes only live ones and ended conversations are not kept", async () => {
    let now = Date.now();
    const client = new GoogleGenAI({
      apiKey: "k",
      httpOptions: { baseUrl, fetch: createGeminiFetch() } as NonNullable<GoogleGenAIOptions["httpOptions"]>,
    });
    const cache = new GeminiContextCache(
      () => client,
      () => now,
    );
    const ttlSeconds = 600;
    // Twenty conversations, each making its cache and then ending.
    for (let i = 0; i < 20; i++) {
      const req = request(1, { ttlSeconds, minTokens: 0 });
      req.contents[0] = { role: "user", parts: [{ text: `conversation ${i}` }] };
      const prepared = await cache.prepare(req, toGeminiRequest(req, "gemini-2.5-flash", { vertex: false }));
      expect(prepared.metadata).toMatchObject({ cacheName: `cachedContents/cache-${i + 1}` });
    }
    // Past their expiry the service has dropped them; one more conversation starts.
    now += (ttlSeconds + 60) * 1000;
    server.caches.clear();
    // The service's clock sets expiry times: this one's outlasts the test clock's jump.
    const last = request(1, { ttlSeconds: 3600, minTokens: 0 });
    await cache.prepare(last, toGeminiRequest(last, "gemini-2.5-flash", { vertex: false }));
    await cache.close();
    // One delete request, for the live cache: the expired ones were forgotten, not asked for.
    const deletes = server.requests.filter((r) => r.method === "DELETE");
    expect(deletes.map((r) => r.path.replace(/^\/v1(beta)?\//, ""))).toEqual(["cachedContents/cache-21"]);
    expect(server.deletedCaches).toEqual(["cachedContents/cache-21"]);
  });
});
