import { afterAll, describe, expect, it } from "@jest/globals";
import { OtlpReceiver } from "@agentkit/test-support/otlp-receiver";
import { OFFLINE_ENV, startCli, tempAgentsDir, type CliProcess } from "./support/cli-process.js";

const CLIENT_KEY = "planted-client-key-7c1d9e";
const WRONG_KEY = "planted-wrong-key-4b2a77";
const MODEL_KEY = "sk-planted-model-key-33aa51";
const OTLP_TOKEN = "planted-otlp-token-8e1f02";
const ARG_SECRET = "sk-planted-tool-arg-6d0c";

const agents = tempAgentsDir("agentkit-otel-");
agents.write("keys", `${CLIENT_KEY} u1\n`);
agents.write(
  "weather/agent.ts",
  `import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";

const model = new ScriptedModel({
  model: "scripted-weather",
  steps: [
    { ...ScriptedModel.functionCall("get_weather", { city: "Oslo", api_key: "${ARG_SECRET}" }, "call-1"),
      usageMetadata: { promptTokenCount: 11, candidatesTokenCount: 3 } },
    { ...ScriptedModel.text("Sunny in Oslo"), usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 4 } },
  ],
});
export const rootAgent = new LlmAgent({
  name: "weather_agent",
  description: "Tells the weather",
  model,
  tools: [new FunctionTool({
    name: "get_weather",
    description: "Weather of a city",
    parameters: z.object({ city: z.string(), api_key: z.string() }),
    // A careless tool that echoes a credential of the environment: masking must catch it on the way out.
    execute: async ({ city }) => ({ city, sky: "sunny", via: process.env.OPENAI_API_KEY }),
  })],
});
`,
);

const children: CliProcess[] = [];
const receivers: OtlpReceiver[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await Promise.all(receivers.map((r) => r.close()));
  agents.remove();
});

async function post(url: string, body: unknown, key?: string): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
}

async function start(args: string[], receiver: OtlpReceiver, env: Record<string, string> = {}) {
  const p = startCli(args, {
    ...OFFLINE_ENV,
    OPENAI_API_KEY: MODEL_KEY,
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${OTLP_TOKEN}`,
    OTEL_SERVICE_NAME: "weather-cli",
    ...env,
  });
  children.push(p);
  return { p, url: await p.listening() };
}

async function runWeather(url: string, key?: string): Promise<{ invocationId: string }[]> {
  expect((await post(`${url}/apps/weather/users/u1/sessions`, { sessionId: "s1" }, key)).status).toBe(200);
  const run = await post(
    `${url}/run`,
    {
      appName: "weather",
      userId: "u1",
      sessionId: "s1",
      newMessage: { role: "user", parts: [{ text: "weather in Oslo?" }] },
    },
    key,
  );
  expect(run.status).toBe(200);
  return (await run.json()) as { invocationId: string }[];
}

describe("agentkit --otel and --log-format json", () => {
  it("api-server: exports spans, metrics and logs to the OTLP receiver; JSON logs carry ids and no secret", async () => {
    const receiver = await new OtlpReceiver().start();
    receivers.push(receiver);
    const { p, url } = await start(
      [
        "api-server",
        agents.dir,
        "--port",
        "0",
        "--no-warm-up",
        "--auth",
        "api-key",
        "--api-keys-file",
        `${agents.dir}/keys`,
        "--otel",
        "--log-format",
        "json",
        "--log-level",
        "debug",
      ],
      receiver,
    );
    expect(p.output()).toContain(`otel: traces ${receiver.url}, metrics ${receiver.url}, logs ${receiver.url}`);
    // A refused credential is logged at debug level: the log must not repeat it.
    expect((await fetch(`${url}/list-apps`, { headers: { authorization: `Bearer ${WRONG_KEY}` } })).status).toBe(401);
    const events = await runWeather(url, CLIENT_KEY);
    const invocationId = events[0]!.invocationId;
    await p.stop();
    expect(await p.exited).toBe(0);

    // Exporters flush on shutdown: everything is at the receiver once the process is gone.
    await receiver.until(() => receiver.spans().some((s) => s.name === "invocation"));
    const spans = receiver.spans();
    const root = spans.find((s) => s.name === "invocation")!;
    const agent = spans.find((s) => s.name === "invoke_agent weather_agent")!;
    const tool = spans.find((s) => s.name === "execute_tool get_weather")!;
    expect(agent.parentSpanId).toBe(root.spanId);
    expect(tool.parentSpanId).toBe(agent.spanId);
    expect(spans.filter((s) => s.name === "call_llm").map((s) => s.parentSpanId)).toEqual([agent.spanId, agent.spanId]);
    expect(root.attributes["gcp.vertex.agent.invocation_id"]).toBe(invocationId);
    expect(root.resource["service.name"]).toBe("weather-cli");
    expect(Object.keys(tool.attributes)).not.toContain("gcp.vertex.agent.tool_call_args");
    const usage = receiver.metrics().get("gen_ai.client.token.usage") ?? [];
    const sum = (type: string) =>
      usage.filter((u) => u.attributes["gen_ai.token.type"] === type).reduce((n, u) => n + (u.sum ?? 0), 0);
    expect([sum("input"), sum("output")]).toEqual([31, 7]);
    expect(receiver.metrics().get("agentkit.tool.calls")?.[0]?.value).toBe(1);
    expect(receiver.metrics().get("gen_ai.client.operation.duration")?.[0]?.count).toBe(2);
    expect(receiver.logs().some((l) => l.body === "run finished")).toBe(true);
    // The server's own debug line about the run went to OTLP too, with its ids.
    expect(receiver.logs().find((l) => l.body === "Run finished")?.attributes).toMatchObject({
      "gcp.vertex.agent.invocation_id": invocationId,
      "gcp.vertex.agent.session_id": "s1",
    });

    // stderr: one JSON object a line, the run's line with its ids.
    const lines = p
      .errors()
      .split("\n")
      .filter((l) => l.trim() !== "");
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const r of records) {
      expect(typeof r.level).toBe("string");
      expect(Number.isNaN(Date.parse(String(r.time)))).toBe(false);
      expect(typeof r.message).toBe("string");
    }
    expect(records).toContainEqual(
      expect.objectContaining({
        level: "debug",
        message: "Run finished",
        app: "weather",
        session: "s1",
        invocation: invocationId,
      }),
    );
    const everything = `${p.output()}\n${p.errors()}\n${receiver.requests.map((r) => r.text).join("\n")}`;
    for (const secret of [CLIENT_KEY, WRONG_KEY, MODEL_KEY, OTLP_TOKEN, ARG_SECRET])
      expect(everything).not.toContain(secret);
  });

  it("web: the exported spans are the ones the dev UI shows; content opted in is exported with credentials masked", async () => {
    const receiver = await new OtlpReceiver().start();
    receivers.push(receiver);
    const { p, url } = await start(
      ["web", agents.dir, "--port", "0", "--no-reload", "--no-warm-up", "--otel", "--otel-capture-content"],
      receiver,
      { AGENTKIT_SESSION_SERVICE_URI: "memory://", AGENTKIT_ARTIFACT_SERVICE_URI: "memory://" },
    );
    await runWeather(url);
    const shown = (await (await fetch(`${url}/debug/trace/session/s1`)).json()) as { span_id: string }[];
    await p.stop();
    await receiver.until(() => receiver.spans().some((s) => s.name === "invocation"));
    const exported = receiver.spans();
    expect(new Set(exported.map((s) => s.spanId))).toEqual(new Set(shown.map((s) => s.span_id)));
    const tool = exported.find((s) => s.name === "execute_tool get_weather")!;
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_call_args"]))).toEqual({
      city: "Oslo",
      api_key: "[REDACTED]",
    });
    expect(JSON.parse(String(tool.attributes["gcp.vertex.agent.tool_response"]))).toEqual({
      city: "Oslo",
      sky: "sunny",
      via: "[REDACTED]",
    });
    expect(String(exported.find((s) => s.name === "call_llm")?.attributes["gcp.vertex.agent.llm_request"])).toContain(
      "weather in Oslo?",
    );
    const payloads = receiver.requests.map((r) => r.text).join("\n");
    for (const secret of [ARG_SECRET, OTLP_TOKEN, MODEL_KEY]) expect(payloads).not.toContain(secret);
  });

  it("a bad OTEL_* variable is a usage error (exit 2) naming the variable, not its value, before anything starts", async () => {
    const receiver = await new OtlpReceiver().start();
    receivers.push(receiver);
    for (const [env, message] of [
      [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /--otel: OTLP over gRPC is not supported/],
      [{ OTEL_EXPORTER_OTLP_HEADERS: OTLP_TOKEN }, /--otel: OTEL_EXPORTER_OTLP_HEADERS: every entry must be key=value/],
    ] as const) {
      const p = startCli(["api-server", agents.dir, "--port", "0", "--otel"], {
        ...OFFLINE_ENV,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        ...env,
      });
      children.push(p);
      expect(await p.exited).toBe(2);
      expect(p.errors()).toMatch(message);
      expect(`${p.output()}${p.errors()}`).not.toContain(OTLP_TOKEN);
    }
    expect(receiver.requests).toEqual([]);
  });
});
