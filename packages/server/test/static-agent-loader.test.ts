import { describe, expect, it } from "@jest/globals";
import { App, ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { AppNotFoundError, createStaticAgentLoader } from "../src/index.js";

describe("createStaticAgentLoader", () => {
  const agent = new LlmAgent({ name: "a", model: new ScriptedModel() });
  const app = new App({ name: "with_app", rootAgent: new LlmAgent({ name: "b", model: new ScriptedModel() }) });

  it("lists apps sorted and returns the same LoadedApp object every time", async () => {
    const loader = createStaticAgentLoader({ apps: { zeta: agent, with_app: app } });
    expect(await loader.listApps()).toEqual(["with_app", "zeta"]);
    const first = await loader.loadApp("zeta");
    expect(first).toBe(await loader.loadApp("zeta"));
    expect(first).toMatchObject({ name: "zeta", rootAgent: agent });
    expect(first.app).toBeUndefined();
    const withApp = await loader.loadApp("with_app");
    expect(withApp.app).toBe(app);
    expect(withApp.rootAgent).toBe(app.rootAgent);
    await expect(loader.loadApp("nope")).rejects.toBeInstanceOf(AppNotFoundError);
    await expect(loader.loadApp("toString")).rejects.toBeInstanceOf(AppNotFoundError);
    await loader.close();
  });

  it("refuses values that are neither agents nor apps", () => {
    expect(() => createStaticAgentLoader({ apps: { bad: {} as never } })).toThrow(ConfigurationError);
    expect(() => createStaticAgentLoader({ apps: { bad: {} as never } })).toThrow(/"bad"/);
  });
});
