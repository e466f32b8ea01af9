import { describe, expect, it } from "@jest/globals";
import {
  artifactPayload,
  base64ToText,
  bytesToBase64,
  inlineDataFromDataUrl,
  normalizeBase64,
} from "../src/ui/lib/base64.js";
import { dotFromResponse, isDot } from "../src/ui/lib/dot.js";
import { downsample, floatToPcm16, pcm16ToFloat, pcmRate } from "../src/ui/lib/pcm.js";
import { formatDuration, isSpanList, llmExchange, timeline } from "../src/ui/lib/trace.js";
import type { Span } from "../src/ui/lib/types.js";
import { sessionUsage, usageRows } from "../src/ui/lib/usage.js";

const span = (id: string, parent: string | null, name: string, startMs: number, endMs: number): Span => ({
  name,
  span_id: id,
  trace_id: "t",
  parent_span_id: parent,
  start_time: 1_700_000_000_000_000_000 + startMs * 1e6,
  end_time: 1_700_000_000_000_000_000 + endMs * 1e6,
  attributes: {},
});

describe("trace timeline", () => {
  it("nests spans under their parents depth-first, siblings by start, with ms offsets and durations", () => {
    const rows = timeline([
      span("t2", "a", "execute_tool add", 30, 35),
      span("a", "root", "invoke_agent bot", 1, 60),
      span("root", null, "invocation", 0, 61),
      span("l1", "a", "call_llm", 2, 29),
      span("orphan", "missing", "call_llm", 70, 80),
    ]);
    expect(rows.map((r) => [r.span.name, r.depth])).toEqual([
      ["invocation", 0],
      ["invoke_agent bot", 1],
      ["call_llm", 2],
      ["execute_tool add", 2],
      ["call_llm", 0],
    ]);
    expect(rows[2]!.startMs).toBeCloseTo(2);
    expect(rows[2]!.durationMs).toBeCloseTo(27);
    expect(timeline([])).toEqual([]);
  });

  it("validates the span list shape and formats durations", () => {
    expect(isSpanList([span("a", null, "x", 0, 1)])).toBe(true);
    expect(isSpanList([{ name: "x" }])).toBe(false);
    expect(isSpanList({})).toBe(false);
    expect(formatDuration(0.25)).toBe("250 µs");
    expect(formatDuration(5)).toBe("5.0 ms");
    expect(formatDuration(1500)).toBe("1.50 s");
  });

  it("parses the model request and response JSON strings of an event trace", () => {
    expect(
      llmExchange({ "gcp.vertex.agent.llm_request": '{"model":"m"}', "gcp.vertex.agent.llm_response": "not json" }),
    ).toEqual({ request: { model: "m" }, response: "not json" });
    expect(llmExchange({ trace_id: "x" })).toEqual({});
  });
});

describe("DOT handling", () => {
  it("finds the DOT source in each server's graph answer", () => {
    expect(dotFromResponse({ dotSrc: "digraph a {}" })).toBe("digraph a {}");
    expect(dotFromResponse({ "": { dotSrc: "digraph root {}" }, "root/x": { dotSrc: "digraph x {}" } })).toBe(
      "digraph root {}",
    );
    expect(dotFromResponse({ "wf@1": { dotSrc: "digraph w {}" } })).toBe("digraph w {}");
    expect(dotFromResponse({})).toBeUndefined();
    expect(dotFromResponse({ dotSrc: null })).toBeUndefined();
  });

  it("tells graphs from other text", () => {
    expect(isDot('strict digraph "echo" { rankdir=LR }')).toBe(true);
    expect(isDot("graph g { a -- b }")).toBe(true);
    expect(isDot("<html>404</html>")).toBe(false);
  });
});

describe("token usage", () => {
  it("sums complete events only and lists every usage key", () => {
    const totals = sessionUsage([
      { id: "1", usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 } },
      { id: "2", partial: true, usageMetadata: { promptTokenCount: 99, totalTokenCount: 99 } },
      { id: "3", usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 2 } },
      { id: "4" },
    ]);
    expect(totals).toEqual({ prompt: 30, candidates: 7, total: 37, thoughts: 0, cached: 0, events: 2 });
    expect(usageRows({ totalTokenCount: 4, promptTokensDetails: [{ modality: "TEXT", tokenCount: 3 }] })).toEqual([
      ["totalTokenCount", "4"],
      ["promptTokensDetails", "TEXT: 3"],
    ]);
  });
});

describe("base64 and artifacts", () => {
  it("normalises URL-safe, unpadded base64", () => {
    expect(normalizeBase64("aGk_Pz8-")).toBe("aGk/Pz8+");
    expect(base64ToText(normalizeBase64("aGVsbG8"))).toBe("hello");
    expect(bytesToBase64(new TextEncoder().encode("hello artifact"))).toBe("aGVsbG8gYXJ0aWZhY3Q=");
  });

  it("reads the three artifact payload forms of section 2.3", () => {
    expect(artifactPayload({ inlineData: { mimeType: "text/plain", data: "aGk=" } })).toEqual({
      mimeType: "text/plain",
      data: "aGk=",
    });
    expect(artifactPayload({ mimeType: "image/png", data: "AA==" })).toEqual({ mimeType: "image/png", data: "AA==" });
    expect(artifactPayload({ text: "hi" })).toEqual({ mimeType: "text/plain", data: "aGk=" });
    expect(artifactPayload({ fileData: {} })).toBeUndefined();
  });

  it("splits a file's data URL into inlineData fields", () => {
    expect(inlineDataFromDataUrl("data:image/png;base64,iVBOR", "a.png")).toEqual({
      mimeType: "image/png",
      data: "iVBOR",
      displayName: "a.png",
    });
    expect(() => inlineDataFromDataUrl("nope", "x")).toThrow(/Not a data URL/);
  });
});

describe("live audio", () => {
  it("downsamples 48 kHz to 16 kHz and round-trips 16-bit PCM", () => {
    const input = new Float32Array(480).fill(0.5);
    const out = downsample(input, 48000);
    expect(out.length).toBe(160);
    expect(out[10]).toBeCloseTo(0.5);
    const pcm = floatToPcm16(new Float32Array([0, 1, -1, 0.5, 2]));
    expect(pcm.byteLength).toBe(10);
    const back = pcm16ToFloat(pcm);
    expect(back[1]).toBeCloseTo(1, 3);
    expect(back[2]).toBe(-1);
    expect(back[4]).toBeCloseTo(1, 3); // clipped
    expect(() => downsample(input, 8000)).toThrow(/upsample/);
    expect(pcmRate("audio/pcm;rate=24000")).toBe(24000);
    expect(pcmRate("audio/pcm")).toBe(24000);
  });
});
