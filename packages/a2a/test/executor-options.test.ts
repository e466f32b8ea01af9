import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, InMemoryRunner, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import type { Runner } from "@agentkit/core";
import { A2aAgentExecutor, type AdmitRun, AgentExecutorConfig, OutputMode, buildAgentCard } from "../src/index.js";
import { weatherTool } from "./our-server.js";

describe("A2aAgentExecutor and buildAgentCard", () => {
  it("validates its options", () => {
    expect(() => new A2aAgentExecutor({ runner: {} as Runner })).toThrow(ConfigurationError);
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "a", model: new ScriptedModel() }) });
    expect(() => new A2aAgentExecutor({ runner, outputMode: "PER_TOKEN" as OutputMode })).toThrow(/outputMode/);
    expect(new A2aAgentExecutor({ runner }).outputMode).toBe(OutputMode.ARTIFACT_PER_EVENT);
    expect(() => new A2aAgentExecutor({ runner, admitRun: "later" as unknown as AdmitRun })).toThrow(/admitRun/);
    expect(AgentExecutorConfig.OutputMode.ARTIFACT_PER_RUN).toBe("ARTIFACT_PER_RUN");
  });

  it("builds a v1.0 card with skills from tools and sub-agents", async () => {
    const helper = new LlmAgent({ name: "helper", description: "Helps.", model: new ScriptedModel() });
    const agent = new LlmAgent({
      name: "main",
      description: "Main agent.",
      model: new ScriptedModel(),
      tools: [weatherTool],
      subAgents: [helper],
    });
    const card = await buildAgentCard({
      agent,
      url: "http://example.com/a2a/app/",
      version: "2.0.0",
      streaming: false,
    });
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
      ["JSONRPC", "http://example.com/a2a/app/jsonrpc"],
      ["HTTP+JSON", "http://example.com/a2a/app/rest"],
    ]);
    expect(card.capabilities?.streaming).toBe(false);
    expect(card.version).toBe("2.0.0");
    expect(card.skills.map((s) => [s.id, s.tags])).toEqual([
      ["main", ["llm"]],
      ["main-get_weather", ["llm", "tools"]],
      ["main-helper", ["sub_agent"]],
    ]);
  });
});
