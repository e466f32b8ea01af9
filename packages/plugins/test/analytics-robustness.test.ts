import { afterAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryRunner, LlmAgent, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import {
  AnalyticsCloseTimeoutError,
  AnalyticsPlugin,
  JsonlAnalyticsSink,
  type AnalyticsRow,
  type AnalyticsSink,
} from "../src/index.js";
import { MemorySink } from "./analytics-fixtures.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-analytics-robust-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes hang until the plugin aborts the signal (then reject, as a well-behaved sink does). */
class HungSink implements AnalyticsSink {
  signals: AbortSignal[] = [];
  constructor(
    private readonly honourSignal: boolean,
    private readonly hangOnClose = false,
  ) {}
  writeRows(_rows: readonly AnalyticsRow[], signal?: AbortSignal): Promise<void> {
    if (signal) this.signals.push(signal);
    return new Promise((_resolve, reject) => {
      if (this.honourSignal) signal?.addEventListener("abort", () => reject(signal.reason as Error), { once: true });
    });
  }
  close(): Promise<void> {
    return this.hangOnClose ? new Promise(() => {}) : Promise.resolve();
  }
}

async function run(
  plugin: AnalyticsPlugin,
  message: Event["content"] | string = "hello",
  state?: Record<string, unknown>,
) {
  const agent = new LlmAgent({
    name: "helper",
    model: new ScriptedModel({ steps: [ScriptedModel.text("Hi there.")] }),
  });
  const runner = new InMemoryRunner({ agent, appName: "robust_app", plugins: [plugin] });
  const session = await runner.sessionService.createSession({
    appName: "robust_app",
    userId: "u",
    ...(state ? { state } : {}),
  });
  const events: Event[] = [];
  for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: message! })) events.push(e);
  return { runner, events };
}

const finalText = (events: Event[]) => events.at(-1)?.content?.parts?.[0]?.text;

describe("AnalyticsPlugin never fails or blocks the run", () => {
  it("drops and counts rows whose contentFormatter throws; the run completes", async () => {
    const sink = new MemorySink();
    const errors: unknown[] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      contentFormatter: () => {
        throw new Error("formatter bug");
      },
      onError: (error, info) => errors.push([error, info.droppedRows]),
    });
    const { runner, events } = await run(plugin);
    expect(finalText(events)).toBe("Hi there.");
    await runner.close();
    // USER_MESSAGE_RECEIVED, LLM_REQUEST and LLM_RESPONSE carry content: dropped, never sent unformatted.
    expect(plugin.droppedRows).toBeGreaterThanOrEqual(3);
    expect(errors).toHaveLength(plugin.droppedRows);
    expect(errors[0]).toEqual([expect.objectContaining({ message: "formatter bug" }), 1]);
    expect(sink.rows.every((r) => r.content === null)).toBe(true);
    expect(sink.rows.map((r) => r.event_type)).toEqual(
      expect.arrayContaining(["INVOCATION_STARTING", "INVOCATION_COMPLETED"]),
    );
  });

  it("logs BigInt and circular values instead of failing", async () => {
    const sink = new MemorySink();
    const plugin = new AnalyticsPlugin({
      sink,
      contentFormatter: (content) => {
        const loop: Record<string, unknown> = { content, count: 10n };
        loop.self = loop;
        return loop;
      },
    });
    const { runner, events } = await run(plugin, "hello", { big: 12n });
    expect(finalText(events)).toBe("Hi there.");
    await runner.close();
    expect(plugin.droppedRows).toBe(0);
    const message = sink.rows.find((r) => r.event_type === "USER_MESSAGE_RECEIVED")!;
    expect(JSON.parse(message.content!)).toEqual({
      content: { role: "user", parts: [{ text: "hello" }] },
      count: "10",
      self: "[Circular]",
    });
    const start = sink.rows.find((r) => r.event_type === "INVOCATION_STARTING")!;
    expect(JSON.parse(start.attributes!).session_metadata.state).toEqual({ big: "12" });
  });

  it("writes an object met twice (not inside itself) in full both times", async () => {
    const sink = new MemorySink();
    const shared = Object.freeze({ tokens: 3 });
    const plugin = new AnalyticsPlugin({
      sink,
      contentFormatter: (content) => ({ content, first: shared, second: [shared, { again: shared }] }),
    });
    const { runner } = await run(plugin, "hello");
    await runner.close();
    const message = sink.rows.find((r) => r.event_type === "USER_MESSAGE_RECEIVED")!;
    expect(JSON.parse(message.content!)).toEqual({
      content: { role: "user", parts: [{ text: "hello" }] },
      first: { tokens: 3 },
      second: [{ tokens: 3 }, { again: { tokens: 3 } }],
    });
  });

  it("close() gives up on a hung sink after closeTimeout, aborts its signal and counts the rows", async () => {
    const sink = new HungSink(true);
    const errors: unknown[] = [];
    const plugin = new AnalyticsPlugin({ sink, closeTimeout: 200, onError: (e) => errors.push(e) });
    const { runner, events } = await run(plugin);
    expect(finalText(events)).toBe("Hi there.");
    await runner.close(); // the sink never finishes: only the close timeout lets this return
    expect(sink.signals.length).toBeGreaterThan(0);
    expect(sink.signals.every((s) => s.aborted)).toBe(true);
    expect(plugin.writtenRows).toBe(0);
    expect(plugin.droppedRows).toBeGreaterThanOrEqual(5);
    expect(errors[0]).toBeInstanceOf(AnalyticsCloseTimeoutError);
    expect((errors[0] as Error).message).toMatch(/within 200 ms; \d+ row\(s\) given up/);
  });

  it("close() returns even when the sink ignores its signal and its close() hangs", async () => {
    const errors: unknown[] = [];
    const plugin = new AnalyticsPlugin({
      sink: new HungSink(false, true),
      closeTimeout: "100ms",
      onError: (e) => errors.push(e),
    });
    const { runner } = await run(plugin);
    await runner.close(); // the sink hangs: only the close timeout lets this return
    expect(errors.map((e) => (e as Error).message)).toEqual([
      expect.stringMatching(/did not finish writing within 100 ms/),
      expect.stringMatching(/close\(\) did not finish within 100 ms/),
    ]);
  });

  it("JsonlAnalyticsSink honours an aborted signal", async () => {
    const file = join(dir, "aborted.jsonl");
    const sink = new JsonlAnalyticsSink({ file });
    await sink.prepare();
    const abort = new AbortController();
    abort.abort(new Error("closing"));
    const row = { timestamp: new Date().toISOString(), event_type: "STATE_DELTA" } as AnalyticsRow;
    await expect(sink.writeRows([row], abort.signal)).rejects.toThrow("closing");
    expect(existsSync(file)).toBe(false);
    await sink.writeRows([row], new AbortController().signal);
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(1);
  });
});

describe("AnalyticsPlugin content options", () => {
  it("contentFormatter redacts what is logged", async () => {
    const sink = new MemorySink();
    const seen: string[] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      contentFormatter: (content, type) => {
        seen.push(type);
        return JSON.stringify(content).replaceAll("hello", "[redacted]");
      },
    });
    const { runner } = await run(plugin, "hello secret");
    await runner.close();
    expect(seen).toEqual(expect.arrayContaining(["USER_MESSAGE_RECEIVED", "LLM_REQUEST", "LLM_RESPONSE"]));
    const message = sink.rows.find((r) => r.event_type === "USER_MESSAGE_RECEIVED")!;
    expect(message.content).toContain("[redacted] secret");
    expect(sink.rows.some((r) => r.content?.includes("hello"))).toBe(false);
  });

  it("logSessionMetadata: false leaves session state out of the rows", async () => {
    const on = new MemorySink();
    const off = new MemorySink();
    for (const [sink, logSessionMetadata] of [
      [on, true],
      [off, false],
    ] as const) {
      const { runner } = await run(new AnalyticsPlugin({ sink, logSessionMetadata }), "hi", { secret_plan: "x" });
      await runner.close();
    }
    expect(on.rows.some((r) => r.attributes?.includes("secret_plan"))).toBe(true);
    expect(
      off.rows.some((r) => r.attributes?.includes("session_metadata") || r.attributes?.includes("secret_plan")),
    ).toBe(false);
    expect(off.rows.length).toBe(on.rows.length);
  });

  it("logMultiModalContent: true keeps inline bytes; false logs their size only", async () => {
    const image = {
      role: "user",
      parts: [{ text: "look" }, { inlineData: { mimeType: "image/png", data: "aGVsbG8gd29ybGQh" } }],
    };
    const rowsFor = async (logMultiModalContent: boolean) => {
      const sink = new MemorySink();
      const { runner } = await run(new AnalyticsPlugin({ sink, logMultiModalContent, maxContentLength: 0 }), image);
      await runner.close();
      return JSON.parse(sink.rows.find((r) => r.event_type === "USER_MESSAGE_RECEIVED")!.content!) as {
        parts: { inlineData?: Record<string, unknown> }[];
      };
    };
    expect((await rowsFor(true)).parts[1]!.inlineData).toEqual({ mimeType: "image/png", data: "aGVsbG8gd29ybGQh" });
    expect((await rowsFor(false)).parts[1]!.inlineData).toEqual({ mimeType: "image/png", bytes: 12, omitted: true });
  });
});
