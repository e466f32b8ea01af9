import { describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { otelConfigFromEnv, redactCredentials } from "../../src/otel.js";

describe("otelConfigFromEnv (the OTLP exporter variables)", () => {
  it("defaults: every signal to localhost:4318 with its path, service agentkit, content off", () => {
    expect(otelConfigFromEnv({})).toEqual({
      serviceName: "agentkit",
      resourceAttributes: {},
      traces: { url: "http://localhost:4318/v1/traces", headers: {} },
      metrics: { url: "http://localhost:4318/v1/metrics", headers: {} },
      logs: { url: "http://localhost:4318/v1/logs", headers: {} },
      metricExportIntervalMs: 60_000,
      captureContent: false,
      notes: [],
    });
  });

  it("a base endpoint gets the signal paths; a signal's own endpoint is used as given; headers merge", () => {
    const config = otelConfigFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: "https://collector.example:4318/otlp/",
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "https://traces.example/custom",
      OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20abc,x-tenant=t1",
      OTEL_EXPORTER_OTLP_LOGS_HEADERS: "x-tenant=logs",
      OTEL_METRICS_EXPORTER: "none",
      OTEL_SERVICE_NAME: "svc",
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=prod,service.namespace=a%2Cb",
      OTEL_METRIC_EXPORT_INTERVAL: "5000",
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true",
    });
    expect(config.traces).toEqual({
      url: "https://traces.example/custom",
      headers: { authorization: "Bearer abc", "x-tenant": "t1" },
    });
    expect(config.metrics).toBeUndefined();
    expect(config.logs).toEqual({
      url: "https://collector.example:4318/otlp/v1/logs",
      headers: { authorization: "Bearer abc", "x-tenant": "logs" },
    });
    expect(config.serviceName).toBe("svc");
    expect(config.resourceAttributes).toEqual({ "deployment.environment": "prod", "service.namespace": "a,b" });
    expect(config.metricExportIntervalMs).toBe(5000);
    expect(config.captureContent).toBe(true);
  });

  it("http/protobuf is sent as http/json with a note; grpc and unknown values are refused", () => {
    expect(otelConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/protobuf" }).notes).toHaveLength(3);
    expect(() => otelConfigFromEnv({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toThrow(/gRPC is not supported/);
    expect(() => otelConfigFromEnv({ OTEL_TRACES_EXPORTER: "zipkin" })).toThrow(ConfigurationError);
    expect(() => otelConfigFromEnv({ OTEL_METRIC_EXPORT_INTERVAL: "soon" })).toThrow(ConfigurationError);
    expect(() => otelConfigFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: "file:///etc/passwd" })).toThrow(/http\(s\) URL/);
  });

  it("errors name the variable, never its value (headers hold credentials)", () => {
    const secret = "s3cr3t-token-value";
    for (const env of [
      { OTEL_EXPORTER_OTLP_HEADERS: `${secret}` },
      { OTEL_EXPORTER_OTLP_HEADERS: `authorization=%E0%A4%A${secret}` },
      { OTEL_EXPORTER_OTLP_ENDPOINT: `not a url ${secret}` },
    ]) {
      let message = "";
      try {
        otelConfigFromEnv(env);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/OTEL_EXPORTER_OTLP_/);
      expect(message).not.toContain(secret);
    }
  });
});

describe("redactCredentials", () => {
  it("masks credential-like keys at any depth and bearer credentials, keeps the rest", () => {
    const text = JSON.stringify({
      city: "Oslo",
      api_key: "sk-1",
      nested: [{ password: "p", note: "use Bearer abc.def.ghi here", maxOutputTokens: 5 }],
      headers: { Authorization: "Basic dXNlcjpwYXNz" },
      usage: { promptTokenCount: 11 },
    });
    expect(JSON.parse(redactCredentials(text))).toEqual({
      city: "Oslo",
      api_key: "[REDACTED]",
      nested: [{ password: "[REDACTED]", note: "use Bearer [REDACTED] here", maxOutputTokens: 5 }],
      headers: { Authorization: "[REDACTED]" },
      usage: { promptTokenCount: 11 },
    });
  });

  it("keeps a __proto__ key of the JSON as a key, its credentials masked", () => {
    // Tool arguments are data: a `__proto__` key must neither vanish nor re-parent the copy.
    const text = '{"__proto__":{"api_key":"sk-2","city":"Oslo"},"token":"t"}';
    expect(redactCredentials(text)).toBe('{"__proto__":{"api_key":"[REDACTED]","city":"Oslo"},"token":"[REDACTED]"}');
  });

  it("masks key=value and quoted pairs in text that is not JSON (a truncated head)", () => {
    expect(redactCredentials('{"args": {"token": "tok-123", "city": "Os')).toBe(
      '{"args": {"token": "[REDACTED]", "city": "Os',
    );
    expect(redactCredentials("password=hunter2 and api_key: abc")).toBe("password=[REDACTED] and api_key: [REDACTED]");
    expect(redactCredentials("gemini-2.5-flash")).toBe("gemini-2.5-flash");
  });
});
