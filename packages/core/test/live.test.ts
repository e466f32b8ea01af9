import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  FunctionTool,
  InMemoryRunner,
  LiveRequestQueue,
  LlmAgent,
  RunAbortedError,
  type SequentialAgent,
  type Event,
} from "../src/index.js";
import { ScriptedLiveModel, ScriptedModel } from "../src/testing/index.js";
import { settle, userText } from "./runner-fixtures/test-agents.js";

const text = (t: string, extra = {}) => ({ content: { role: "model", parts: [{ text: t }] }, ...extra });
const textOf = (e: Event) =>
  e.content?.parts
    ?.map(
      (p) =>
        p.text ??
        (p.functionCall ? `call:${p.functionCall.name}` : p.functionResponse ? `resp:${p.functionResponse.name}` : ""),
    )
    .join("");

async function setup(agent: LlmAgent | SequentialAgent) {
  const runner = new InMemoryRunner({ agent, appName: "app" });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const stored = async () => (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return { runner, stored };
}

/** Runs live, calling `onEvent` for each event (it may send on the queue). */
async function runLive(
  runner: InMemoryRunner,
  queue: LiveRequestQueue,
  onEvent: (e: Event, all: Event[]) => void = () => {},
  signal?: AbortSignal,
): Promise<Event[]> {
  const events: Event[] = [];
  for await (const e of runner.runLive({ userId: "u", sessionId: "s", liveRequestQueue: queue, signal })) {
    events.push(e);
    onEvent(e, events);
  }
  return events;
}

describe("live (BIDI) runs", () => {
  it("answers queued content with model events, persisting the user content and complete events", async () => {
    const model = new ScriptedLiveModel({
      replies: [[text("Hel", { partial: true }), text("lo", { partial: true }), text("Hello"), { turnComplete: true }]],
    });
    const agent = new LlmAgent({ name: "voice", model, instruction: "Be brief." });
    const { runner, stored } = await setup(agent);
    const queue = new LiveRequestQueue();
    queue.sendContent(userText("hi"));
    const events = await runLive(runner, queue, (e) => {
      if (e.turnComplete) queue.close();
    });

    expect(events.map((e) => [textOf(e) ?? "", e.partial ?? false, e.turnComplete ?? false])).toEqual([
      ["Hel", true, false],
      ["lo", true, false],
      ["Hello", false, false],
      ["", false, true],
    ]);
    const connection = model.lastConnection!;
    expect(connection.contents).toEqual([userText("hi")]);
    expect(connection.closed).toBe(true);
    expect(connection.request.config.systemInstruction).toContain("Be brief.");
    const session = await stored();
    expect(session.events.map((e) => [e.author, textOf(e) ?? "", e.turnComplete ?? false])).toEqual([
      ["user", "hi", false],
      ["voice", "Hello", false],
      ["voice", "", true],
    ]);
    expect(new Set(session.events.map((e) => e.invocationId)).size).toBe(1);
  });

  it("sends the session history when it opens and forwards realtime blobs", async () => {
    const model = new ScriptedLiveModel({ replies: [[text("earlier answer")]] });
    const agent = new LlmAgent({ name: "voice", model });
    const { runner } = await setup(agent);
    const first = new LiveRequestQueue();
    first.sendContent(userText("remember 42"));
    await runLive(runner, first, () => first.close());

    const second = new LiveRequestQueue();
    second.sendRealtime({ mimeType: "audio/pcm", data: "AAAA" });
    second.close();
    await runLive(runner, second);
    const conn = model.connections[1]!;
    expect(conn.history.map((c) => [c.role, c.parts?.[0]?.text])).toEqual([
      ["user", "remember 42"],
      ["model", "earlier answer"],
    ]);
    expect(conn.inputs).toEqual([{ kind: "realtime", blob: { mimeType: "audio/pcm", data: "AAAA" } }]);
    expect(conn.closed).toBe(true);
  });

  it("executes a function call from the model and sends the response back", async () => {
    const calls: unknown[] = [];
    const weather = new FunctionTool({
      name: "get_weather",
      description: "Weather of a city",
      parameters: z.object({ city: z.string() }),
      execute: ({ city }, toolContext) => {
        calls.push(city);
        toolContext.state.set("last_city", city);
        return { forecast: "sunny" };
      },
    });
    const model = new ScriptedLiveModel({
      replies: [
        [
          {
            content: {
              role: "model",
              parts: [{ functionCall: { id: "c1", name: "get_weather", args: { city: "Oslo" } } }],
            },
          },
        ],
        (input) => {
          const resp = input.kind === "content" ? input.content.parts?.[0]?.functionResponse : undefined;
          return [text(`It is ${String((resp?.response as { forecast?: string })?.forecast)}`), { turnComplete: true }];
        },
      ],
    });
    const agent = new LlmAgent({ name: "voice", model, tools: [weather] });
    const { runner, stored } = await setup(agent);
    const queue = new LiveRequestQueue();
    queue.sendContent(userText("weather in Oslo?"));
    const events = await runLive(runner, queue, (e) => {
      if (e.turnComplete) queue.close();
    });

    expect(calls).toEqual(["Oslo"]);
    expect(events.map(textOf)).toEqual(["call:get_weather", "resp:get_weather", "It is sunny", undefined]);
    const sent = model.lastConnection!.contents;
    expect(sent[1]).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "c1", name: "get_weather", response: { forecast: "sunny" } } }],
    });
    const session = await stored();
    expect(session.state.last_city).toBe("Oslo");
    // The tool response is stored once (by the flow's event), not again as a user message.
    expect(session.events.filter((e) => e.content?.parts?.some((p) => p.functionResponse))).toHaveLength(1);
  });

  it("ends when the queue closes even if the model never spoke, closing the connection", async () => {
    const queue = new LiveRequestQueue();
    // Close the queue once the run is connected and waiting.
    class ClosingOnConnect extends ScriptedLiveModel {
      override async connect(...args: Parameters<ScriptedLiveModel["connect"]>) {
        const connection = await super.connect(...args);
        void settle().then(() => queue.close());
        return connection;
      }
    }
    const model = new ClosingOnConnect();
    const { runner } = await setup(new LlmAgent({ name: "voice", model }));
    const events = await runLive(runner, queue);
    expect(events).toEqual([]);
    expect(model.lastConnection!.closeCount).toBeGreaterThanOrEqual(1);
  });

  it("ends promptly on abort with RunAbortedError and closes the connection", async () => {
    const model = new ScriptedLiveModel({ replies: [[text("first")]] });
    const { runner, stored } = await setup(new LlmAgent({ name: "voice", model }));
    const queue = new LiveRequestQueue();
    queue.sendContent(userText("hi"));
    const controller = new AbortController();
    // Abort once the run is idle after the first event (nothing else would ever end it).
    await expect(
      runLive(runner, queue, () => void settle().then(() => controller.abort()), controller.signal),
    ).rejects.toBeInstanceOf(RunAbortedError);
    await settle();
    expect(model.lastConnection!.closed).toBe(true);
    queue.sendContent(userText("too late"));
    await settle();
    expect((await stored()).events.map(textOf)).toEqual(["hi", "first"]);
    expect(model.lastConnection!.contents).toHaveLength(1);
  });

  it("stops the live run when the consumer breaks out", async () => {
    const model = new ScriptedLiveModel({ replies: [[text("one"), text("two")]] });
    const { runner } = await setup(new LlmAgent({ name: "voice", model }));
    const queue = new LiveRequestQueue();
    queue.sendContent(userText("hi"));
    for await (const _ of runner.runLive({ userId: "u", sessionId: "s", liveRequestQueue: queue })) break;
    expect(model.lastConnection!.closed).toBe(true);
  });

  it("a text-only runner rejects live on a model without connect", async () => {
    const { runner } = await setup(new LlmAgent({ name: "texty", model: new ScriptedModel() }));
    const queue = new LiveRequestQueue();
    await expect(runLive(runner, queue)).rejects.toThrow(/does not support live/);
  });
});
