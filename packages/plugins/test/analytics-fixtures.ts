// Shared by the AnalyticsPlugin tests: the bench-like weather agent and an in-memory sink.
import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import type { AnalyticsRow, AnalyticsSink } from "../src/index.js";

/** An agent that calls `get_weather` once, then answers (11 rows a run). */
export function weatherAgent(fail = false) {
  const tool = new FunctionTool({
    name: "get_weather",
    description: "Weather",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      if (fail) throw new Error("weather down");
      return { city, forecast: "sunny" };
    },
  });
  const model = new ScriptedModel({
    steps: [
      ScriptedModel.functionCall("get_weather", { city: "Paris" }),
      ScriptedModel.text("Sunny in Paris.", {
        usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 4, totalTokenCount: 16 },
      }),
    ],
  });
  return new LlmAgent({ name: "weather_agent", model, tools: [tool] });
}

/** The event types of the rows one run of `weatherAgent()` writes, in order. */
export const WEATHER_RUN_ROWS = [
  "USER_MESSAGE_RECEIVED",
  "INVOCATION_STARTING",
  "AGENT_STARTING",
  "LLM_REQUEST",
  "LLM_RESPONSE",
  "TOOL_STARTING",
  "TOOL_COMPLETED",
  "LLM_REQUEST",
  "LLM_RESPONSE",
  "AGENT_COMPLETED",
  "INVOCATION_COMPLETED",
];

/** A sink that keeps rows in memory, with scriptable failures and delays. */
export class MemorySink implements AnalyticsSink {
  rows: AnalyticsRow[] = [];
  batches: number[] = [];
  prepareCalls = 0;
  prepareFailures = 0;
  failures = 0;
  gate?: Promise<void>;
  closed = false;
  async prepare() {
    this.prepareCalls++;
    if (this.prepareFailures > 0) {
      this.prepareFailures--;
      throw new Error("cannot create table");
    }
  }
  async writeRows(rows: readonly AnalyticsRow[]) {
    await this.gate;
    if (this.failures > 0) {
      this.failures--;
      throw new Error("warehouse unavailable");
    }
    this.batches.push(rows.length);
    this.rows.push(...rows);
  }
  async close() {
    this.closed = true;
  }
}
