import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { App, InMemorySessionService, LlmAgent, Runner, type Event } from "@agentkit/core";
import { Gemini } from "../src/gemini/index.js";
import { candidateResponse, FakeGeminiServer } from "./fixtures/gemini-server.js";

// ContextCacheConfig end to end: App → Runner → core's flow → Gemini adapter → (fake) Gemini
// API. The cache state travels in the session's events, so a second runner with a new model
// instance (a new process of a stateless server) reuses the cache.

let server: FakeGeminiServer;
let baseUrl: string;
beforeEach(async () => {
  server = new FakeGeminiServer();
  baseUrl = await server.start();
});
afterEach(async () => {
  await server.close();
});

const system = "You are a records clerk. ".repeat(20);
const cacheCreates = () =>
  server.requests.filter((r) => r.method === "POST" && r.path.startsWith("/v1beta/cachedContents"));
const cacheDeletes = () =>
  server.requests.filter((r) => r.method === "DELETE" && r.path.startsWith("/v1beta/cachedContents"));
const generateBodies = () =>
  server.requests
    .filter((r) => r.path.includes(":generateContent"))
    .map((r) => r.body as { cachedContent?: string; contents: unknown[] });

function runnerWith(sessionService: InMemorySessionService): { runner: Runner; model: Gemini } {
  const model = new Gemini({ model: "gemini-2.5-flash", apiKey: "k", baseUrl });
  const app = new App({
    name: "cache_app",
    rootAgent: new LlmAgent({ name: "clerk", model, instruction: system }),
    contextCacheConfig: { cacheIntervals: 3, ttlSeconds: 600, minTokens: 0 },
  });
  return { runner: new Runner({ app, sessionService }), model };
}

async function turn(runner: Runner, sessionId: string, n: number): Promise<Event> {
  server.reply({
    kind: "json",
    body: candidateResponse([{ text: `answer ${n}` }], {
      usage: { promptTokenCount: 900, candidatesTokenCount: 2, totalTokenCount: 902 },
    }),
  });
  let last: Event | undefined;
  for await (const e of runner.runAsync({ userId: "u", sessionId, newMessage: `question ${n}` })) last = e;
  return last!;
}

describe("ContextCacheConfig through Runner and the Gemini adapter", () => {
  it("creates a cache, reuses it from the session's metadata in a new runner and model, refreshes it after cacheIntervals", async () => {
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "cache_app", userId: "u" });

    const first = runnerWith(sessionService);
    const e1 = await turn(first.runner, session.id, 1);
    expect(cacheCreates()).toHaveLength(0); // nothing before the newest message to cache yet
    expect(e1.cacheMetadata).toMatchObject({ contentsCount: 0, invocationsUsed: 0 });
    const e2 = await turn(first.runner, session.id, 2);
    expect(cacheCreates()).toHaveLength(1);
    expect(e2.cacheMetadata).toMatchObject({
      cacheName: "cachedContents/cache-1",
      contentsCount: 2,
      invocationsUsed: 1,
    });
    expect(generateBodies()[1]).toMatchObject({
      cachedContent: "cachedContents/cache-1",
      contents: [{ role: "user", parts: [{ text: "question 2" }] }],
    });
    // Dropped without close(): close() would delete the caches it made, and a crashed or
    // scaled-out server process does not close either.

    // A new runner and a new model instance: nothing in memory, only the session.
    const second = runnerWith(sessionService);
    const e3 = await turn(second.runner, session.id, 3);
    expect(cacheCreates()).toHaveLength(1);
    expect(generateBodies()[2]!.cachedContent).toBe("cachedContents/cache-1");
    expect(generateBodies()[2]!.contents).toHaveLength(3); // question 2, answer 2, question 3
    expect(e3.cacheMetadata).toMatchObject({ cacheName: "cachedContents/cache-1", invocationsUsed: 2 });
    await turn(second.runner, session.id, 4);
    expect(cacheCreates()).toHaveLength(1);

    // cacheIntervals (3) requests served: the next one makes a fresh cache of the longer prefix.
    const e5 = await turn(second.runner, session.id, 5);
    expect(cacheCreates()).toHaveLength(2);
    expect(cacheDeletes().map((r) => r.path)).toEqual(["/v1beta/cachedContents/cache-1"]);
    expect(e5.cacheMetadata).toMatchObject({
      cacheName: "cachedContents/cache-2",
      contentsCount: 8,
      invocationsUsed: 1,
    });
    expect(generateBodies()[4]).toMatchObject({
      cachedContent: "cachedContents/cache-2",
      contents: [{ role: "user", parts: [{ text: "question 5" }] }],
    });

    const stored = await sessionService.getSession({ appName: "cache_app", userId: "u", sessionId: session.id });
    expect(
      stored!.events
        .filter((e) => e.author === "clerk")
        .map((e) => (e.cacheMetadata as { cacheName?: string } | undefined)?.cacheName ?? null),
    ).toEqual([
      null,
      "cachedContents/cache-1",
      "cachedContents/cache-1",
      "cachedContents/cache-1",
      "cachedContents/cache-2",
    ]);
    await second.runner.close();
  });
});
