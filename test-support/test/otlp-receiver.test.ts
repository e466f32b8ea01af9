import { afterEach, describe, expect, it } from "@jest/globals";
import { gzipSync } from "node:zlib";
import { OtlpReceiver } from "../src/otlp-receiver.js";

const str = (value: string) => ({ stringValue: value });

describe("OtlpReceiver", () => {
  let receiver: OtlpReceiver | undefined;
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

  it("decodes OTLP JSON spans, metrics and logs (gzip too) and wakes waiters on arrival", async () => {
    receiver = await new OtlpReceiver().start();
    const r = receiver;
    const arrived = r.until(() => r.spans().length === 1 && r.metrics().size === 2 && r.logs().length === 1);
    const post = (path: string, body: unknown, gzip = false) =>
      fetch(`${r.url}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...(gzip ? { "content-encoding": "gzip" } : {}) },
        body: gzip ? gzipSync(JSON.stringify(body)) : JSON.stringify(body),
      });
    const resource = { attributes: [{ key: "service.name", value: str("svc") }] };
    expect(
      (
        await post("/v1/traces", {
          resourceSpans: [
            {
              resource,
              scopeSpans: [
                {
                  spans: [
                    {
                      name: "invocation",
                      traceId: "a".repeat(32),
                      spanId: "b".repeat(16),
                      attributes: [{ key: "n", value: { intValue: "3" } }],
                    },
                  ],
                },
              ],
            },
          ],
        })
      ).status,
    ).toBe(200);
    await post(
      "/v1/metrics",
      {
        resourceMetrics: [
          {
            scopeMetrics: [
              {
                metrics: [
                  { name: "runs", sum: { dataPoints: [{ asInt: "2", attributes: [] }] } },
                  { name: "tokens", histogram: { dataPoints: [{ count: "1", sum: 11, attributes: [] }] } },
                ],
              },
            ],
          },
        ],
      },
      true,
    );
    await post("/v1/logs", {
      resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityText: "INFO", severityNumber: 9, body: str("hi") }] }] }],
    });
    await arrived;
    expect(r.spans()[0]).toMatchObject({
      name: "invocation",
      parentSpanId: "",
      attributes: { n: 3 },
      resource: { "service.name": "svc" },
    });
    expect(r.metrics().get("runs")).toEqual([{ attributes: {}, value: 2 }]);
    expect(r.metrics().get("tokens")).toEqual([{ attributes: {}, count: 1, sum: 11 }]);
    expect(r.logs()).toEqual([{ severityText: "INFO", severityNumber: 9, body: "hi", attributes: {} }]);
  });

  it("answers a body that is not JSON with 400 and keeps nothing", async () => {
    receiver = await new OtlpReceiver().start();
    const res = await fetch(`${receiver.url}/v1/traces`, { method: "POST", body: "\x0a\x01" });
    expect(res.status).toBe(400);
    expect(receiver.requests).toEqual([]);
  });
});
