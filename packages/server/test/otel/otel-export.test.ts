import { afterEach, describe, expect, it } from "@jest/globals";
import {
  FunctionTool,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemoryRunner,
  InMemorySessionService,
  LlmAgent,
  LlmCallsLimitExceededError,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { OtlpReceiver } from "@agentkit/test-support/otlp-receiver";
import { z } from "zod";
import { createAgentServer, createStaticAgentLoader, type ServerLogger } from "../../src/index.js";
import { otelConfigFromEnv, startOtelExport, type OtelExportOptions } from "../../src/otel.js";

const HEADER_SECRET = "planted-otlp-header-secret-5f2c";
const ARG_SECRET = "sk-planted-tool-arg-secret-91ab";

function recordingLogger(): ServerLogger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    error: (m, e) => lines.push(`error ${m} ${e instanceof Error ? e.message : ""}`),
    warn: (m, e) => lines.push(`warn ${m} ${e instanceof Error ? e.message : ""}`),
    info: (m) => lines.push(`info ${m}`),
  };
}

/** A weather agent whose model calls a tool (with a credential in its arguments), then answers. */
function weatherAgent(): LlmAgent {
  const model = new ScriptedModel({
    model: "scripted-weather",
    steps: [
      {
        ...ScriptedModel.functionCall("get_weather", { city: "Oslo", api_key: ARG_SECRET }, "call-1"),
        usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 3 },
      },
      { ...ScriptedModel.text("Sunny in Oslo"), usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 4 } },
    ],
  });
  return new LlmAgent({
    name: "weather_agent",
    description: "Tells the weather",
    model,
    tools: [
      new FunctionTool({
        name: "get_weather",
        description: "Weather of a city",
        parameters: z.object({ city: z.string(), api_key: z.string() }),
        execute: async ({ city }) => ({ city, sky: "sunny" }),
      }),
    ],
  });
}

/** Serves one app with the export wired as `agentkit api-server --otel` does, runs one turn, closes. */
async function runOnce(endpoint: string, extra: Partial<OtelExportOptions> = {}) {
  const logger = recordingLogger();
  const otel = startOtelExport({
    config: otelConfigFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${HEADER_SECRET}`,
      OTEL_SERVICE_NAME: "weather-service",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
    }),
    logger,
    ...extra,
  });
  const server = createAgentServer({
    loader: createStaticAgentLoader({ apps: { weather: weatherAgent() } }),
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    plugins: otel.plugins(),
    logger: otel.logger(logger),
    onRunQueueWait: (ms, app) => otel.recordRunQueueWait(ms, app),
    mode: "api",
  });
  const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
  try {
    const created = await fetch(`${url}/apps/weather/users/u1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId: "s1" }),
    });
    expect(created.status).toBe(200);
    const run = await fetch(`${url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        appName: "weather",
        userId: "u1",
        sessionId: "s1",
        newMessage: { role: "user", parts: [{ text: "weather in Oslo?" }] },
      }),
    });
    expect(run.status).toBe(200);
    const events = (await run.json()) as { invocationId: string; content?: { parts?: { text?: string }[] } }[];
    return { events, logger };
  } finally {
    await server.close();
    await otel.shutdown();
  }
}

describe("OpenTelemetry export over OTLP/HTTP (JSON) to a local receiver", () => {
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("exports the run's spans, GenAI and run metrics and a log record, without content by default", async () => {
    receiver = await new OtlpReceiver().start();
    const { events } = await runOnce(receiver.url);
    const r = receiver;
    await r.until(() => r.spans().length >= 4 && r.metrics().has("gen_ai.client.token.usage") && r.logs().length > 0);
    const invocationId = events[0]!.invocationId;

    // Headers reach the receiver (its credentials), and are the receiver's only: see the payload check below.
    expect(r.requests.every((q) => q.headers["x-api-key"] === HEADER_SECRET)).toBe(true);
    expect(new Set(r.requests.map((q) => q.path))).toEqual(new Set(["/v1/traces", "/v1/metrics", "/v1/logs"]));

    const spans = r.spans();
    const byName = (name: string) => spans.filter((s) => s.name === name);
    const [root] = byName("invocation");
    const [agent] = byName("invoke_agent weather_agent");
    const llm = byName("call_llm");
    const [tool] = byName("execute_tool get_weather");
    expect(root && agent && tool).toBeTruthy();
    expect(llm).toHaveLength(2);
    expect(root!.parentSpanId).toBe("");
    expect(agent!.parentSpanId).toBe(root!.spanId);
    expect(tool!.parentSpanId).toBe(agent!.spanId);
    for (const call of llm) expect(call.parentSpanId).toBe(agent!.spanId);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(1);
    expect(root!.attributes["gcp.vertex.agent.invocation_id"]).toBe(invocationId);
    expect(agent!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_agent",
      "gen_ai.agent.name": "weather_agent",
      "gen_ai.conversation.id": "s1",
    });
    expect(llm[0]!.attributes).toMatchObject({
      "gen_ai.operation.name": "generate_content",
      "gen_ai.request.model": "scripted-weather",
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 3,
    });
    expect(tool!.attributes).toMatchObject({ "gen_ai.tool.name": "get_weather", "gen_ai.tool.call.id": "call-1" });
    expect(root!.resource).toMatchObject({ "service.name": "weather-service", "deployment.environment": "test" });
    // Content is opt-in: no prompt, response or tool payload by default.
    for (const span of spans)
      for (const key of Object.keys(span.attributes))
        expect(key).not.toMatch(/llm_request|llm_response|tool_call_args|tool_response/);
    expect(r.allText()).not.toContain("weather in Oslo?");
    expect(r.allText()).not.toContain("Sunny in Oslo");

    const metrics = r.metrics();
    const usage = metrics.get("gen_ai.client.token.usage")!;
    const tokens = (type: string) =>
      usage.filter((p) => p.attributes["gen_ai.token.type"] === type).reduce((sum, p) => sum + (p.sum ?? 0), 0);
    expect(tokens("input")).toBe(31);
    expect(tokens("output")).toBe(7);
    expect(usage.every((p) => p.attributes["gen_ai.request.model"] === "scripted-weather")).toBe(true);
    const durations = metrics.get("gen_ai.client.operation.duration")!;
    expect(durations.reduce((n, p) => n + (p.count ?? 0), 0)).toBe(2);
    expect(metrics.get("agentkit.runs")!.map((p) => p.value)).toEqual([1]);
    expect(metrics.get("agentkit.runs.active")!.map((p) => p.value)).toEqual([0]);
    expect(metrics.get("agentkit.tool.calls")).toEqual([
      {
        attributes: { "agentkit.app.name": "weather", "gen_ai.tool.name": "get_weather", "agentkit.outcome": "ok" },
        value: 1,
      },
    ]);
    // The run waited for its session's turn once (creating the session takes no turn).
    expect(metrics.get("agentkit.run_queue.wait")!.reduce((n, p) => n + (p.count ?? 0), 0)).toBe(1);

    const finished = r.logs().find((l) => l.body === "run finished");
    expect(finished).toMatchObject({
      severityText: "INFO",
      attributes: {
        "agentkit.app.name": "weather",
        "gcp.vertex.agent.invocation_id": invocationId,
        "gcp.vertex.agent.session_id": "s1",
      },
    });
    // Neither the exporter's credential header nor the tool argument's key is in any payload.
    const bodies = r.requests.map((q) => q.text).join("\n");
    expect(bodies).not.toContain(HEADER_SECRET);
    expect(bodies).not.toContain(ARG_SECRET);
  });

  it("with content capture on, exports prompts, responses and tool payloads with credentials masked", async () => {
    receiver = await new OtlpReceiver().start();
    await runOnce(receiver.url, {
      captureContent: true,
      redact: (text) => text.replaceAll("Oslo", "<city>"),
    });
    const r = receiver;
    await r.until(() => r.spans().some((s) => s.name === "execute_tool get_weather"));
    const spans = r.spans();
    const tool = spans.find((s) => s.name === "execute_tool get_weather")!;
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_call_args"]))).toEqual({
      city: "<city>",
      api_key: "[REDACTED]",
    });
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_response"]))).toEqual({
      city: "<city>",
      sky: "sunny",
    });
    const [first, second] = spans.filter((s) => s.name === "call_llm");
    const request = JSON.parse(String(first!.attributes["gcp.vertex.agent.llm_request"]));
    expect(JSON.stringify(request.contents)).toContain("weather in <city>?");
    expect(String(second!.attributes["gcp.vertex.agent.llm_response"])).toContain("Sunny in <city>");
    expect(r.allText()).not.toContain(ARG_SECRET);
    expect(r.requests.map((q) => q.text).join("\n")).not.toContain(HEADER_SECRET);
  });

  it("a receiver that is down never fails a run; the failure is logged once per signal and shutdown ends", async () => {
    // A port that was just free: nothing listens there.
    const gone = await new OtlpReceiver().start();
    const url = gone.url;
    await gone.close();
    const { events, logger } = await runOnce(url, { shutdownTimeoutMs: 60_000 });
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("Sunny in Oslo");
    const failures = logger.lines.filter((l) => l.startsWith("warn OpenTelemetry: exporting"));
    expect(failures.length).toBeGreaterThan(0);
    for (const signal of ["traces", "metrics", "logs"])
      expect(failures.filter((l) => l.includes(`exporting ${signal} failed`)).length).toBeLessThanOrEqual(1);
    expect(logger.lines.join("\n")).not.toContain(HEADER_SECRET);
  });

  it("a run that throws counts as a run error and marks its invocation span, with the error's code only", async () => {
    receiver = await new OtlpReceiver().start();
    const otel = startOtelExport({
      config: otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url }),
      logger: recordingLogger(),
    });
    // The model asks for a tool; a limit of one LLM call ends the run before the second.
    const runner = new InMemoryRunner({ agent: weatherAgent(), appName: "weather", plugins: otel.plugins() });
    try {
      const session = await runner.sessionService.createSession({ appName: "weather", userId: "u1" });
      const run = async () => {
        for await (const _ of runner.runAsync({
          userId: "u1",
          sessionId: session.id,
          newMessage: { role: "user", parts: [{ text: "weather in Oslo?" }] },
          runConfig: { maxLlmCalls: 1 },
        }));
      };
      await expect(run()).rejects.toBeInstanceOf(LlmCallsLimitExceededError);
    } finally {
      await runner.close();
      await otel.shutdown();
    }
    const r = receiver;
    await r.until(() => r.spans().some((s) => s.name === "invocation") && r.metrics().has("agentkit.errors"));
    expect(r.metrics().get("agentkit.errors")).toContainEqual({
      attributes: {
        "agentkit.app.name": "weather",
        "agentkit.error.source": "run",
        "error.type": "LLM_CALLS_LIMIT_EXCEEDED",
      },
      value: 1,
    });
    const root = r.spans().find((s) => s.name === "invocation")!;
    expect(root.status).toEqual({ code: 2, message: "LLM_CALLS_LIMIT_EXCEEDED" });
    expect(r.allText()).not.toContain("Raise RunConfig.maxLlmCalls");
  });
});
