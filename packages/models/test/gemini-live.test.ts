import { getEventListeners } from "node:events";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import {
  createLlmRequest,
  FunctionTool,
  getTextOf,
  InMemoryRunner,
  LiveRequestQueue,
  LlmAgent,
  type BaseLlmConnection,
  type Event,
  type LlmResponse,
} from "@agentkit/core";
import { z } from "zod";
import { ProviderError } from "../src/index.js";
import { Gemini } from "../src/gemini/index.js";
import { FakeGeminiLiveServer, type LiveClientMessage } from "./fixtures/gemini-live-server.js";

let server: FakeGeminiLiveServer;
let baseUrl: string;
let model: Gemini;

beforeEach(async () => {
  server = new FakeGeminiLiveServer();
  baseUrl = await server.start();
  model = new Gemini({ model: "gemini-live-2.5-flash-preview", apiKey: "live-key", baseUrl });
});
afterEach(async () => {
  await model.close();
  await server.close();
});

/** Reads responses until `stop` says so (or the stream ends). */
async function readUntil(connection: BaseLlmConnection, stop: (r: LlmResponse) => boolean): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  const iterator = connection.receive();
  for (;;) {
    const next = await iterator.next();
    if (next.done) return out;
    out.push(next.value);
    if (stop(next.value)) {
      void iterator.return(undefined);
      return out;
    }
  }
}

const textTurn = (...pieces: string[]) => [
  ...pieces.map((text) => ({ serverContent: { modelTurn: { role: "model", parts: [{ text }] } } })),
  {
    serverContent: { turnComplete: true },
    usageMetadata: { promptTokenCount: 12, responseTokenCount: 3, totalTokenCount: 15 },
  },
];

describe("Gemini live connection", () => {
  it("opens the BidiGenerateContent socket with a setup message built from the request", async () => {
    const request = createLlmRequest({
      config: {
        systemInstruction: "Speak briefly.",
        temperature: 0.3,
        tools: [{ functionDeclarations: [{ name: "lookup" }] }, { googleSearch: {} }],
      },
      liveConnectConfig: { responseModalities: ["TEXT"], outputAudioTranscription: {}, inputAudioTranscription: {} },
    });
    const connection = await model.connect(request);
    const session = server.sessions[0]!;
    expect(session.url).toMatch(
      /\/ws\/google\.ai\.generativelanguage\.v1beta\.GenerativeService\.BidiGenerateContent\?key=live-key$/,
    );
    expect(session.setup).toMatchObject({
      model: "models/gemini-live-2.5-flash-preview",
      generationConfig: { responseModalities: ["TEXT"], temperature: 0.3 },
      systemInstruction: { parts: [{ text: "Speak briefly." }] },
      tools: [{ functionDeclarations: [{ name: "lookup" }] }, { googleSearch: {} }],
      outputAudioTranscription: {},
      inputAudioTranscription: {},
    });
    await connection.close();
    // The SDK closes without a status code (1005 on the server side).
    expect(await session.closed).toBe(1005);
  });

  it("uses the Vertex AI Live endpoint with the key header in Vertex AI express mode", async () => {
    const vertex = new Gemini({ model: "gemini-live-2.5-flash", apiKey: "vertex-key", vertexai: true, baseUrl });
    const connection = await vertex.connect(createLlmRequest({ liveConnectConfig: { responseModalities: ["TEXT"] } }));
    const session = server.sessions[0]!;
    expect(session.url).toMatch(/\/ws\/google\.cloud\.aiplatform\.v1beta1\.LlmBidiService\/BidiGenerateContent$/);
    expect(session.headers["x-goog-api-key"]).toBe("vertex-key");
    expect(session.setup).toMatchObject({ generationConfig: { responseModalities: ["TEXT"] } });
    await vertex.close();
    expect(await session.closed).toBe(1005);
    void connection;
  });

  it("sends history and content; yields text partials, the whole turn's text, usage and turnComplete", async () => {
    server.onMessage((message) =>
      "clientContent" in message && (message.clientContent as { turnComplete?: boolean }).turnComplete
        ? textTurn("Hel", "lo!")
        : undefined,
    );
    const connection = await model.connect(createLlmRequest({ liveConnectConfig: { responseModalities: ["TEXT"] } }));
    await connection.sendHistory([
      { role: "user", parts: [{ text: "earlier question" }] },
      { role: "model", parts: [{ text: "earlier answer" }] },
    ]);
    await connection.sendContent({ role: "user", parts: [{ text: "Say hello" }] });
    const responses = await readUntil(connection, (r) => r.turnComplete === true);
    expect(responses.filter((r) => r.partial).map((r) => getTextOf(r.content))).toEqual(["Hel", "lo!"]);
    const whole = responses.find((r) => !r.partial && r.content);
    expect(whole).toEqual({ content: { role: "model", parts: [{ text: "Hello!" }] } });
    expect(responses.find((r) => r.usageMetadata)?.usageMetadata).toMatchObject({
      promptTokenCount: 12,
      candidatesTokenCount: 3,
      totalTokenCount: 15,
    });
    expect(responses.at(-1)).toMatchObject({ turnComplete: true });

    const [history, content] = server.sessions[0]!.messages;
    expect(history).toEqual({
      clientContent: {
        turns: [
          { role: "user", parts: [{ text: "earlier question" }] },
          { role: "model", parts: [{ text: "earlier answer" }] },
        ],
        turnComplete: false,
      },
    });
    expect(content).toEqual({
      clientContent: { turns: [{ role: "user", parts: [{ text: "Say hello" }] }], turnComplete: true },
    });
    await connection.close();
  });

  it("yields tool calls with their ids and sends tool responses as toolResponse", async () => {
    server.onMessage((message) => {
      if ("clientContent" in message)
        return [{ toolCall: { functionCalls: [{ id: "live-fc-1", name: "lookup", args: { key: "k1" } }] } }];
      if ("toolResponse" in message) return textTurn("Found it.");
      return undefined;
    });
    const connection = await model.connect(createLlmRequest());
    await connection.sendContent({ role: "user", parts: [{ text: "look up k1" }] });
    const [call] = await readUntil(connection, (r) => Boolean(r.content?.parts?.[0]?.functionCall));
    expect(call!.content!.parts).toEqual([{ functionCall: { id: "live-fc-1", name: "lookup", args: { key: "k1" } } }]);
    await connection.sendContent({
      role: "user",
      parts: [{ functionResponse: { id: "live-fc-1", name: "lookup", response: { value: 42 } } }],
    });
    const rest = await readUntil(connection, (r) => r.turnComplete === true);
    expect(rest.map((r) => getTextOf(r.content)).filter(Boolean)).toEqual(["Found it.", "Found it."]);
    expect(server.sessions[0]!.messages[1]).toEqual({
      toolResponse: { functionResponses: [{ id: "live-fc-1", name: "lookup", response: { value: 42 } }] },
    });
    await connection.close();
  });

  it("streams audio blobs as realtimeInput and yields audio, transcriptions and interruptions", async () => {
    const pcm = Buffer.from([1, 2, 3, 4]).toString("base64");
    server.onMessage((message) => {
      if (!("realtimeInput" in message)) return undefined;
      return [
        { serverContent: { inputTranscription: { text: "what time", finished: true } } },
        { serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: "audio/pcm;rate=24000", data: pcm } }] } } },
        { serverContent: { outputTranscription: { text: "It is" } } },
        { serverContent: { interrupted: true } },
        { sessionResumptionUpdate: { newHandle: "handle-2", resumable: true } },
      ];
    });
    const connection = await model.connect(createLlmRequest({ liveConnectConfig: { responseModalities: ["AUDIO"] } }));
    await connection.sendRealtime({ mimeType: "audio/pcm;rate=16000", data: pcm });
    const responses = await readUntil(connection, (r) => r.liveSessionResumptionUpdate !== undefined);
    expect(server.sessions[0]!.messages[0]).toEqual({
      realtimeInput: { audio: { mimeType: "audio/pcm;rate=16000", data: pcm } },
    });
    expect(responses).toEqual([
      { inputTranscription: { text: "what time", finished: true }, partial: false },
      { content: { role: "model", parts: [{ inlineData: { mimeType: "audio/pcm;rate=24000", data: pcm } }] } },
      { outputTranscription: { text: "It is" }, partial: true },
      { interrupted: true },
      { liveSessionResumptionUpdate: { newHandle: "handle-2", resumable: true } },
    ]);
    await connection.sendRealtime({ mimeType: "image/jpeg", data: pcm });
    while (server.sessions[0]!.messages.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(server.sessions[0]!.messages[1]).toEqual({
      realtimeInput: { video: { mimeType: "image/jpeg", data: pcm } },
    });
    await connection.close();
  });

  it("ends receive() after close() and refuses to send afterwards", async () => {
    const connection = await model.connect(createLlmRequest());
    const reading = readUntil(connection, () => false);
    await connection.close();
    expect(await reading).toEqual([]);
    await expect(connection.sendContent({ role: "user", parts: [{ text: "late" }] })).rejects.toBeInstanceOf(
      ProviderError,
    );
  });

  it("throws a SERVER_ERROR from receive() when the service closes the socket with 1011", async () => {
    server.onMessage((_message, socket) => socket.close(1011, "Internal error occurred."));
    const connection = await model.connect(createLlmRequest());
    await connection.sendContent({ role: "user", parts: [{ text: "hi" }] });
    const error = await readUntil(connection, () => false).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ category: "SERVER_ERROR", message: expect.stringContaining("1011") });
  });

  it("fails connect() with a typed NETWORK error when the service cannot be reached", async () => {
    const unreachable = new Gemini({
      model: "gemini-live-2.5-flash-preview",
      apiKey: "k",
      baseUrl: "http://127.0.0.1:1",
    });
    await expect(unreachable.connect(createLlmRequest())).rejects.toMatchObject({ category: "NETWORK" });
  });

  it("stops listening to the caller's signal once the connection closes, however it closed", async () => {
    const controller = new AbortController();
    const listeners = () => getEventListeners(controller.signal, "abort").length;
    // A signal that outlives its connections, as a live run's does across transfers.
    const first = await model.connect(createLlmRequest(), { signal: controller.signal });
    const second = await model.connect(createLlmRequest(), { signal: controller.signal });
    expect(listeners()).toBe(2);
    await first.close();
    expect(listeners()).toBe(1);
    // The service ends the second one.
    server.onMessage((_message, socket) => socket.close(1000, "bye"));
    await second.sendContent({ role: "user", parts: [{ text: "bye" }] });
    await readUntil(second, () => false);
    expect(listeners()).toBe(0);
  });

  it("gives up opening on the caller's abort when the service never completes the setup, closing the socket", async () => {
    server.withholdSetupComplete = true;
    const controller = new AbortController();
    const opening = model.connect(createLlmRequest(), { signal: controller.signal });
    await server.setupReceived;
    controller.abort();
    await expect(opening).rejects.toMatchObject({ category: "CANCELLED" });
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    expect(typeof (await server.sessions[0]!.closed)).toBe("number");
  });

  it("times out opening after timeoutMs when the service never completes the setup, closing the socket", async () => {
    server.withholdSetupComplete = true;
    const slow = new Gemini({ model: "gemini-live-2.5-flash-preview", apiKey: "live-key", baseUrl, timeoutMs: 500 });
    try {
      await expect(slow.connect(createLlmRequest())).rejects.toMatchObject({ category: "TIMEOUT", retryable: true });
      // The socket the server accepted is closed (on a loaded machine the deadline may even pass
      // before the handshake completes, and the server then sees none).
      expect(server.sessions.length).toBeLessThanOrEqual(1);
      for (const session of server.sessions) expect(typeof (await session.closed)).toBe("number");
    } finally {
      await slow.close();
    }
  });

  it("gives up opening on the request's own config.abortSignal, beside the caller's signal", async () => {
    server.withholdSetupComplete = true;
    const caller = new AbortController();
    const config = new AbortController();
    const opening = model.connect(createLlmRequest({ config: { abortSignal: config.signal } }), {
      signal: caller.signal,
    });
    await server.setupReceived;
    config.abort(new Error("the request's own"));
    await expect(opening).rejects.toMatchObject({ category: "CANCELLED" });
    expect(typeof (await server.sessions[0]!.closed)).toBe("number");
    // Neither signal keeps a listener of the connection that never opened.
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(config.signal, "abort")).toHaveLength(0);
  });

  it("closes the session when the request's config.abortSignal aborts, and then leaves both signals", async () => {
    const caller = new AbortController();
    const config = new AbortController();
    const connection = await model.connect(createLlmRequest({ config: { abortSignal: config.signal } }), {
      signal: caller.signal,
    });
    const reading = readUntil(connection, () => false);
    config.abort();
    expect(await reading).toEqual([]);
    expect(await server.sessions[0]!.closed).toBe(1005);
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
    expect(getEventListeners(config.signal, "abort")).toHaveLength(0);
  });

  it("closes the session when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const connection = await model.connect(createLlmRequest(), { signal: controller.signal });
    const reading = readUntil(connection, () => false);
    controller.abort();
    expect(await reading).toEqual([]);
    expect(await server.sessions[0]!.closed).toBe(1005);
  });
});

describe("Gemini live in a run (runner.runLive)", () => {
  it("runs a tool call over the live connection and sends the result back", async () => {
    server.onMessage((message: LiveClientMessage) => {
      if ("clientContent" in message)
        return [{ toolCall: { functionCalls: [{ id: "fc-live", name: "get_time", args: { zone: "UTC" } }] } }];
      if ("toolResponse" in message) return textTurn("It is noon.");
      return undefined;
    });
    const getTime = new FunctionTool({
      name: "get_time",
      description: "Current time",
      parameters: z.object({ zone: z.string() }),
      execute: ({ zone }) => ({ zone, time: "12:00" }),
    });
    const agent = new LlmAgent({ name: "clock", model, instruction: "Tell the time.", tools: [getTime] });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const queue = new LiveRequestQueue();
    queue.sendContent({ role: "user", parts: [{ text: "What time is it?" }] });
    const events: Event[] = [];
    for await (const event of runner.runLive({
      userId: "u",
      sessionId: "s",
      liveRequestQueue: queue,
      runConfig: { autoCreateSession: true, responseModalities: ["TEXT"] },
    })) {
      events.push(event);
      if (event.turnComplete) queue.close();
    }
    await runner.close();
    const session = server.sessions[0]!;
    expect(session.setup).toMatchObject({
      systemInstruction: { parts: [{ text: expect.stringContaining("Tell the time.") }] },
    });
    expect(session.messages[1]).toEqual({
      toolResponse: {
        functionResponses: [{ id: "fc-live", name: "get_time", response: { zone: "UTC", time: "12:00" } }],
      },
    });
    expect(events.some((e) => e.content?.parts?.some((p) => p.functionResponse?.response?.time === "12:00"))).toBe(
      true,
    );
    expect(events.filter((e) => !e.partial).map((e) => getTextOf(e.content))).toContain("It is noon.");
  });
});
