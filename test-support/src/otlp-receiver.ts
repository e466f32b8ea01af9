import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One OTLP/HTTP export request as the receiver got it. */
export interface OtlpRequest {
  /** `/v1/traces`, `/v1/metrics` or `/v1/logs`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The body as sent (after gzip), for "this text never appears" checks. */
  text: string;
  /** The decoded `Export*ServiceRequest` (OTLP JSON encoding). */
  body: Record<string, unknown>;
}

/** A flattened OTLP span (attribute values unwrapped from `AnyValue`). */
export interface OtlpSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  attributes: Record<string, unknown>;
  status: { code?: number; message?: string };
  resource: Record<string, unknown>;
}

export interface OtlpLogRecord {
  severityText: string;
  severityNumber: number;
  body: unknown;
  attributes: Record<string, unknown>;
}

/**
 * A local OTLP/HTTP receiver (the collector's JSON encoding, `application/json`) on 127.0.0.1:
 * it answers every export with 200 `{}` and keeps what it got, so tests assert on exactly what
 * an exporter sent. `until(check)` resolves once a request makes `check` true (no polling).
 */
export class OtlpReceiver {
  readonly requests: OtlpRequest[] = [];
  private readonly waiters = new Set<() => void>();
  private server: Server | undefined;
  url = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        let raw = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") raw = gunzipSync(raw);
        const text = raw.toString("utf8");
        let body: Record<string, unknown>;
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          res.writeHead(400, { "content-type": "application/json" }).end('{"message":"not OTLP JSON"}');
          return;
        }
        this.requests.push({ path: req.url ?? "", headers: req.headers, text, body });
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
        for (const wake of [...this.waiters]) wake();
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Resolves when `check()` holds (checked now and after every request). */
  until(check: () => boolean): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        if (!check()) return;
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
    });
  }

  /** Every text the receiver got, concatenated (for planted-secret checks). */
  allText(): string {
    return this.requests.map((r) => `${JSON.stringify(r.headers)}\n${r.text}`).join("\n");
  }

  spans(): OtlpSpan[] {
    const out: OtlpSpan[] = [];
    for (const r of this.requests.filter((r) => r.path === "/v1/traces"))
      for (const rs of list(r.body.resourceSpans)) {
        const resource = attributesOf(list(obj(rs).resource ? obj(obj(rs).resource).attributes : []));
        for (const ss of list(obj(rs).scopeSpans))
          for (const s of list(obj(ss).spans)) {
            const span = obj(s);
            out.push({
              name: String(span.name),
              traceId: String(span.traceId),
              spanId: String(span.spanId),
              parentSpanId: String(span.parentSpanId ?? ""),
              attributes: attributesOf(list(span.attributes)),
              status: obj(span.status ?? {}) as OtlpSpan["status"],
              resource,
            });
          }
      }
    return out;
  }

  /** Metric data points by metric name: `{ attributes, value }` (sums and gauges) or `{ attributes, count, sum }` (histograms). */
  metrics(): Map<string, { attributes: Record<string, unknown>; value?: number; count?: number; sum?: number }[]> {
    const out = new Map<
      string,
      { attributes: Record<string, unknown>; value?: number; count?: number; sum?: number }[]
    >();
    for (const r of this.requests.filter((r) => r.path === "/v1/metrics"))
      for (const rm of list(r.body.resourceMetrics))
        for (const sm of list(obj(rm).scopeMetrics))
          for (const m of list(obj(sm).metrics)) {
            const metric = obj(m);
            const points = out.get(String(metric.name)) ?? [];
            const data = obj(metric.sum ?? metric.gauge ?? metric.histogram ?? {});
            for (const p of list(data.dataPoints)) {
              const point = obj(p);
              const attributes = attributesOf(list(point.attributes));
              if (metric.histogram) points.push({ attributes, count: Number(point.count), sum: Number(point.sum) });
              else points.push({ attributes, value: Number(point.asInt ?? point.asDouble) });
            }
            out.set(String(metric.name), points);
          }
    return out;
  }

  logs(): OtlpLogRecord[] {
    const out: OtlpLogRecord[] = [];
    for (const r of this.requests.filter((r) => r.path === "/v1/logs"))
      for (const rl of list(r.body.resourceLogs))
        for (const sl of list(obj(rl).scopeLogs))
          for (const l of list(obj(sl).logRecords)) {
            const record = obj(l);
            out.push({
              severityText: String(record.severityText ?? ""),
              severityNumber: Number(record.severityNumber ?? 0),
              body: anyValue(record.body),
              attributes: attributesOf(list(record.attributes)),
            });
          }
    return out;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function obj(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" ? (value as Record<string, unknown>) : {};
}

function attributesOf(items: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of items) out[String(obj(item).key)] = anyValue(obj(item).value);
  return out;
}

/** OTLP JSON `AnyValue` → a plain value (int64s arrive as strings or numbers). */
function anyValue(value: unknown): unknown {
  const v = obj(value);
  if ("stringValue" in v) return v.stringValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("boolValue" in v) return v.boolValue;
  if ("arrayValue" in v) return list(obj(v.arrayValue).values).map(anyValue);
  if ("kvlistValue" in v) return attributesOf(list(obj(v.kvlistValue).values));
  return undefined;
}
