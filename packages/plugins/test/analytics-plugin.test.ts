import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BasePlugin, ConfigurationError, InMemoryRunner, LlmAgent, type InvocationContext } from "@agentkit/core";
import { ContentsProbeModel } from "@agentkit/core/testing";
import { AnalyticsPlugin, JsonlAnalyticsSink, type AnalyticsRow } from "../src/index.js";
import { MemorySink, WEATHER_RUN_ROWS, weatherAgent } from "./analytics-fixtures.js";
import { runOnce } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-analytics-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("AnalyticsPlugin", () => {
  it("writes one row per run, agent, model and tool event to JSON lines", async () => {
    const file = join(dir, "all.jsonl");
    const plugin = new AnalyticsPlugin({ sink: new JsonlAnalyticsSink({ file }), customTags: { env: "test" } });
    const { runner, events } = await runOnce(weatherAgent(), [plugin], "Weather in Paris?");
    await runner.close();
    const rows = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as AnalyticsRow);
    expect(rows.map((r) => r.event_type)).toEqual(WEATHER_RUN_ROWS);
    expect(
      rows.every(
        (r) =>
          r.invocation_id === events[0]!.invocationId &&
          r.app_name === "plugins_test" &&
          r.user_id === "u" &&
          r.session_id.length > 0,
      ),
    ).toBe(true);
    expect(rows[0]!.content).toBe("Weather in Paris?");
    const tool = rows.find((r) => r.event_type === "TOOL_COMPLETED")!;
    expect(tool).toMatchObject({
      tool_name: "get_weather",
      agent: "weather_agent",
      status: "OK",
      content: '{"city":"Paris","forecast":"sunny"}',
    });
    expect(typeof tool.latency_ms).toBe("number");
    const answer = rows.filter((r) => r.event_type === "LLM_RESPONSE")[1]!;
    expect(answer.content).toBe("Sunny in Paris.");
    expect(JSON.parse(answer.attributes!)).toMatchObject({
      usage: { totalTokenCount: 16 },
      custom_tags: { env: "test" },
    });
    expect(JSON.parse(rows[1]!.attributes!).session_metadata).toMatchObject({ state: {} });
  });

  it("logs tool errors, honours allow and deny lists, truncates content and hides inline bytes", async () => {
    const sink = new MemorySink();
    const plugin = new AnalyticsPlugin({
      sink,
      eventAllowlist: ["TOOL_ERROR", "USER_MESSAGE_RECEIVED", "LLM_REQUEST"],
      eventDenylist: ["LLM_REQUEST"],
      maxContentLength: 10,
    });
    const runner = new InMemoryRunner({ agent: weatherAgent(true), appName: "plugins_test", plugins: [plugin] });
    const session = await runner.sessionService.createSession({ appName: "plugins_test", userId: "u" });
    const image = Buffer.alloc(3000, 1).toString("base64");
    for await (const _ of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: {
        role: "user",
        parts: [
          { text: "Weather in Paris, please, with details" },
          { inlineData: { mimeType: "image/png", data: image } },
        ],
      },
    }));
    await runner.close();
    expect(sink.rows.map((r) => r.event_type)).toEqual(["USER_MESSAGE_RECEIVED", "TOOL_ERROR"]);
    const user = sink.rows[0]!;
    expect(user.is_truncated).toBe(true);
    expect(user.content).toHaveLength(10);
    expect(sink.rows[1]).toMatchObject({ status: "ERROR", error_message: "weather down", tool_name: "get_weather" });
    expect(sink.closed).toBe(true);

    const full = new MemorySink();
    const p2 = new AnalyticsPlugin({ sink: full, eventAllowlist: ["USER_MESSAGE_RECEIVED"], maxContentLength: 0 });
    const r2 = new InMemoryRunner({ agent: weatherAgent(), appName: "plugins_test", plugins: [p2] });
    const s2 = await r2.sessionService.createSession({ appName: "plugins_test", userId: "u" });
    for await (const _ of r2.runAsync({
      userId: "u",
      sessionId: s2.id,
      newMessage: { role: "user", parts: [{ text: "look" }, { inlineData: { mimeType: "image/png", data: image } }] },
    }));
    await r2.close();
    expect(full.rows[0]!.content).toContain('"bytes":3000');
    expect(full.rows[0]!.content).not.toContain(image.slice(0, 50));
  });

  it("writes in batches, retries a failing sink, and never blocks or fails the run", async () => {
    const sink = new MemorySink();
    sink.failures = 2;
    let release!: () => void;
    sink.gate = new Promise((r) => (release = r));
    const plugin = new AnalyticsPlugin({
      sink,
      batchSize: 4,
      retry: { initialDelay: "5ms" },
      batchFlushInterval: "1h",
    });
    const { runner, events } = await runOnce(weatherAgent(), [plugin], "hi");
    // The run finished although the sink has not accepted anything yet.
    expect(events.at(-1)!.content!.parts![0]!.text).toBe("Sunny in Paris.");
    expect(sink.rows).toHaveLength(0);
    release();
    await runner.close();
    expect(sink.rows).toHaveLength(11);
    expect(sink.batches).toEqual([4, 4, 3]);
    expect(plugin.droppedRows).toBe(0);
    expect(sink.prepareCalls).toBeGreaterThanOrEqual(1);
  });

  it("drops a batch after its retries and reports it, keeping later batches", async () => {
    const sink = new MemorySink();
    sink.failures = 3;
    const reports: number[] = [];
    const plugin = new AnalyticsPlugin({
      sink,
      batchSize: 100,
      retry: { initialDelay: 1, maxAttempts: 3 },
      onError: (_e, info) => reports.push(info.droppedRows),
    });
    const { runner, sessionId } = await runOnce(weatherAgent(), [plugin], "first");
    await plugin.flush();
    expect(reports).toEqual([11]);
    expect(plugin.droppedRows).toBe(11);
    const agent2 = weatherAgent();
    const r2 = new InMemoryRunner({ agent: agent2, appName: "plugins_test", plugins: [plugin] });
    await runOnce(agent2, [], "second", r2);
    await r2.close();
    expect(sink.rows.length).toBe(11);
    expect(plugin.writtenRows).toBe(11);
    await runner.close();
    void sessionId;
  });

  it("prepares the sink again after a failed prepare, once it succeeded never again", async () => {
    const sink = new MemorySink();
    sink.prepareFailures = 1;
    const plugin = new AnalyticsPlugin({ sink, batchSize: 4, retry: { initialDelay: 1 } });
    const { runner } = await runOnce(weatherAgent(), [plugin], "hi");
    await runner.close();
    expect(sink.prepareCalls).toBe(2);
    expect(sink.rows).toHaveLength(11);
  });

  it("flushes on its interval without waiting for close", async () => {
    const sink = new MemorySink();
    const plugin = new AnalyticsPlugin({ sink, batchFlushInterval: "20ms" });
    const { runner } = await runOnce(weatherAgent(), [plugin], "hi");
    // Only the 20 ms interval can flush before close(): wait for it (a broken one fails by the test timeout).
    while (sink.rows.length < 11) await new Promise((r) => setTimeout(r, 10));
    expect(sink.rows).toHaveLength(11);
    await runner.close();
  });

  it("bounds its queue, does nothing when disabled, and validates its configuration", async () => {
    const sink = new MemorySink();
    sink.gate = new Promise(() => undefined);
    const bounded = new AnalyticsPlugin({
      sink,
      maxQueueSize: 3,
      batchSize: 1000,
      batchFlushInterval: "1h",
      onError: () => undefined,
    });
    await runOnce(weatherAgent(), [bounded], "hi");
    expect(bounded.droppedRows).toBe(8);

    const off = new MemorySink();
    const { runner } = await runOnce(weatherAgent(), [new AnalyticsPlugin({ sink: off, enabled: false })], "hi");
    await runner.close();
    expect(off.rows).toHaveLength(0);

    expect(() => new AnalyticsPlugin({} as never)).toThrow(ConfigurationError);
    expect(() => new AnalyticsPlugin({ sink: off, batchSize: 0 })).toThrow(/batchSize/);
    expect(() => new AnalyticsPlugin({ sink: off, batchFlushInterval: "soon" })).toThrow(/batchFlushInterval/);
    expect(() => new AnalyticsPlugin({ sink: off, eventAllowlist: ["NOPE" as never] })).toThrow(
      /unknown event type "NOPE"/,
    );
    expect(() => new JsonlAnalyticsSink({})).toThrow(TypeError);
  });

  it("splits rows into one file per day in directory mode", async () => {
    const daily = join(dir, "daily");
    const { runner } = await runOnce(
      weatherAgent(),
      [new AnalyticsPlugin({ sink: new JsonlAnalyticsSink({ dir: daily }) })],
      "hi",
    );
    await runner.close();
    const files = readdirSync(daily);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^events-\d{4}-\d{2}-\d{2}\.jsonl$/);
  });

  it("costs a long conversation what its rows keep: no history copy, no event list, the request's head", async () => {
    const sink = new MemorySink();
    const model = new ContentsProbeModel();
    const plugin = new AnalyticsPlugin({ sink, batchFlushInterval: 60_000 });
    // Counts who builds `session.events` of a run's session (over a long stored history, a copy).
    let eventListsBuilt = 0;
    class EventListWatch extends BasePlugin {
      override async beforeRunCallback({ invocationContext }: { invocationContext: InvocationContext }) {
        const session = invocationContext.session;
        const own = Object.getOwnPropertyDescriptor(session, "events");
        if (own?.get)
          Object.defineProperty(session, "events", {
            ...own,
            get() {
              eventListsBuilt++;
              return own.get!.call(this) as unknown;
            },
          });
        return undefined;
      }
    }
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model, instruction: "Answer briefly." }),
      appName: "app",
      plugins: [new EventListWatch("watch"), plugin],
    });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
    for (let turn = 1; turn <= 150; turn++) {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: `question ${turn}` }))
        void _;
    }
    await plugin.flush();
    // Past the history length the runner shares (16 events), every call got the one shared array.
    expect(plugin.readsContentsOnly).toBe(true);
    expect(new Set(model.requests.slice(9).map((r) => r.contents)).size).toBe(1);
    // Past 256 stored events a run's session follows the store's list: nothing built its copy.
    expect(eventListsBuilt).toBe(0);
    const started = sink.rows.filter((r) => r.event_type === "INVOCATION_STARTING").at(-1)!;
    expect(JSON.parse(started.attributes!)).toMatchObject({ session_metadata: { events: 299 } });
    // The last request's row: the head of its JSON, cut at 500.
    const request = sink.rows.filter((r) => r.event_type === "LLM_REQUEST").at(-1)!;
    const last = model.requests.at(-1)!;
    const whole = JSON.stringify({
      systemInstruction: last.config.systemInstruction,
      contents: last.contents.slice(0, 299),
    });
    expect(request).toMatchObject({ content: whole.slice(0, 500), is_truncated: true });
    await runner.close();
  });

  it("hands a contentFormatter the whole request, so it is given its own copy of the history", async () => {
    const seen: unknown[] = [];
    const plugin = new AnalyticsPlugin({
      sink: new MemorySink(),
      contentFormatter: (content) => {
        seen.push(content);
        return content;
      },
    });
    expect(plugin.readsContentsOnly).toBe(false);
    await runOnce(weatherAgent(), [plugin], "weather?");
    expect(seen.length).toBeGreaterThan(0);
  });
});
