import { describe, expect, it } from "@jest/globals";
import { App, InMemoryRunner, LlmAgent } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

describe("context cache metadata in requests", () => {
  it("fills request.cacheMetadata from this agent's latest event that has some, only with a cache config", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text("a1", { cacheMetadata: { cacheName: "c/1", n: 1 } }),
        ScriptedModel.text("a2"),
        ScriptedModel.text("a3", { cacheMetadata: { cacheName: "c/2", n: 3 } }),
        ScriptedModel.text("a4"),
      ],
    });
    const app = new App({
      name: "cached",
      rootAgent: new LlmAgent({ name: "root", model }),
      contextCacheConfig: { cacheIntervals: 5 },
    });
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: "cached", userId: "u" });
    for (const text of ["q1", "q2", "q3", "q4"])
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: text }));
    expect(model.requests.map((r) => r.cacheMetadata)).toEqual([
      undefined,
      { cacheName: "c/1", n: 1 },
      { cacheName: "c/1", n: 1 },
      { cacheName: "c/2", n: 3 },
    ]);
    expect(model.requests.every((r) => r.cacheConfig?.cacheIntervals === 5)).toBe(true);
    await runner.close();

    const plain = new ScriptedModel({
      steps: [ScriptedModel.text("a1", { cacheMetadata: { cacheName: "c/1" } }), ScriptedModel.text("a2")],
    });
    const noCache = new InMemoryRunner({ agent: new LlmAgent({ name: "root", model: plain }), appName: "plain" });
    const s2 = await noCache.sessionService.createSession({ appName: "plain", userId: "u" });
    for (const text of ["q1", "q2"])
      for await (const _ of noCache.runAsync({ userId: "u", sessionId: s2.id, newMessage: text }));
    expect(plain.requests.map((r) => r.cacheMetadata)).toEqual([undefined, undefined]);
    await noCache.close();
  });
});
