import { describe, expect, it } from "@jest/globals";
import { App, InMemoryRunner, LlmAgent } from "../src/index.js";
import { ScriptedModel } from "../src/testing/index.js";

describe("App.contextCacheConfig", () => {
  async function firstRequest(app: App, model: ScriptedModel) {
    const runner = new InMemoryRunner({ app });
    const session = await runner.sessionService.createSession({ appName: app.name, userId: "u" });
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "hi" }));
    await runner.close();
    model.assertConsumed();
    return model.requests[0]!;
  }

  it("reaches every model request of the app's agents", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("hello")] });
    const config = { cacheIntervals: 5, ttlSeconds: 600, minTokens: 2048 };
    const app = new App({ name: "cached", rootAgent: new LlmAgent({ name: "a", model }), contextCacheConfig: config });
    expect((await firstRequest(app, model)).cacheConfig).toEqual(config);
  });

  it("is absent when the app sets none", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("hello")] });
    const app = new App({ name: "plain", rootAgent: new LlmAgent({ name: "a", model }) });
    expect((await firstRequest(app, model)).cacheConfig).toBeUndefined();
  });
});
