import { describe, expect, it } from "@jest/globals";
import {
  AgentTool,
  BaseLlm,
  ConfigurationError,
  InMemoryRunner,
  LlmAgent,
  ModelRegistry,
  SequentialAgent,
  type LlmResponse,
} from "../../src/index.js";
import { warmUpRuntime } from "../../src/internal.js";

/** A model that records warm-ups and fails the test if it is ever called. */
class WarmableModel extends BaseLlm {
  warmUps = 0;
  constructor(
    model: string,
    private readonly failWarmUp = false,
  ) {
    super({ model });
  }
  override async warmUp(): Promise<void> {
    this.warmUps += 1;
    if (this.failWarmUp) throw new ConfigurationError(`${this.model}: no key`);
  }
  // biome-ignore lint/correctness/useYield: never called during a warm-up
  override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    throw new Error("warm-up must not call the provider");
  }
}

describe("Runner.warmUp", () => {
  it("warms each model of the tree once: sub-agents, AgentTool agents, names through the registry", async () => {
    const created = new Map<string, WarmableModel>();
    const registry = new ModelRegistry().register(/^named-/, (name) => {
      const model = new WarmableModel(name, name === "named-broken");
      created.set(name, model);
      return model;
    });
    const shared = new WarmableModel("shared");
    const helper = new LlmAgent({ name: "helper", model: "named-helper" });
    const root = new SequentialAgent({
      name: "root",
      subAgents: [
        new LlmAgent({ name: "a", model: shared, tools: [new AgentTool({ agent: helper })] }),
        new LlmAgent({ name: "b", model: shared }),
        new LlmAgent({ name: "c", model: "named-broken" }),
        new LlmAgent({ name: "d", model: "unregistered-model" }),
      ],
    });
    const runner = new InMemoryRunner({ agent: root, modelRegistry: registry });
    try {
      const report = await runner.warmUp();
      expect(report.models).toEqual(["named-helper", "shared"]);
      expect(shared.warmUps).toBe(1);
      expect(created.get("named-helper")!.warmUps).toBe(1);
      expect(report.failures.map((f) => [f.agent, f.model, (f.error as Error).constructor.name])).toEqual(
        expect.arrayContaining([
          ["c", "named-broken", "ConfigurationError"],
          ["d", undefined, "ConfigurationError"],
        ]),
      );
      expect(report.failures).toHaveLength(2);
    } finally {
      await runner.close();
    }
  });

  it("refuses on a closed runner", async () => {
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "a", model: new WarmableModel("m") }) });
    await runner.close();
    await expect(runner.warmUp()).rejects.toBeInstanceOf(ConfigurationError);
  });
});

describe("warmUpRuntime", () => {
  it("runs whole turns (model, tool call, answer) on a private agent", async () => {
    // Per turn: the tool call, its response and the answer.
    await expect(warmUpRuntime(2)).resolves.toBe(6);
  });
});
