import { describe, expect, it } from "@jest/globals";
import { InMemoryRunner, LlmAgent } from "@agentkit/core";
import { ContentsProbeModel } from "@agentkit/core/testing";
import { createNoopMeter } from "@opentelemetry/api";
import { OtelMetricsPlugin } from "../../src/otel/metrics-plugin.js";

describe("OtelMetricsPlugin", () => {
  it("leaves a long session's history shared: its model hooks never look at the contents", async () => {
    const model = new ContentsProbeModel();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model }),
      appName: "app",
      plugins: [new OtelMetricsPlugin(createNoopMeter())],
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    for (let turn = 1; turn <= 12; turn++) {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: `question ${turn}` }))
        void _;
    }
    // Past the 16 events from which the runner shares a session's history, no call copied it.
    expect(new Set(model.requests.slice(9).map((r) => r.contents)).size).toBe(1);
    await runner.close();
  });
});
