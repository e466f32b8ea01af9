// Clients that stop reading or vanish do not hold what they started: a /run_sse client that reads
// nothing past `sseWriteTimeoutMs` loses its run (and the session's turn), a /run_live socket that
// misses a pong is terminated, and an artifact request's store call is told when its client left.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import {
  BaseLlm,
  type BaseLlmConnection,
  type GenerateContentOptions,
  InMemoryArtifactService,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  type LoadArtifactRequest,
  type Part,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { DEFAULT_SERVER_LIMITS } from "../../src/index.js";
import { rawClient, until, within } from "../support/raw-socket.js";
import { json, post, startTestServer, userMessage, warningLogger, type TestServer } from "../support/test-server.js";

/** Generous bound for what must happen "at once" (a loaded CI machine), never a wait by itself. */
const BOUND_MS = 8000;
const SSE_WRITE_TIMEOUT_MS = 300;
const PING_INTERVAL_MS = 100;

/**
 * Streams 64 KiB text chunks for as long as its call is not aborted (the first call only; later
 * calls answer "after"), so a client that does not read fills every buffer on the way.
 */
class FloodingModel extends BaseLlm {
  calls = 0;
  aborted = false;

  constructor() {
    super({ model: "flooding" });
  }

  override async *generateContentAsync(
    _request: LlmRequest,
    _stream?: boolean,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    this.calls += 1;
    if (this.calls > 1) {
      yield ScriptedModel.text("after");
      return;
    }
    options.signal?.addEventListener("abort", () => (this.aborted = true), { once: true });
    const chunk = "x".repeat(64 * 1024);
    while (!options.signal?.aborted) {
      yield { content: { role: "model", parts: [{ text: chunk }] }, partial: true };
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/** A live model whose connection never opens: the live run waits until it is aborted. */
class WaitingLiveModel extends BaseLlm {
  constructor() {
    super({ model: "waiting-live" });
  }

  // biome-ignore lint/correctness/useYield: a live-only model has no text calls.
  override async *generateContentAsync(): AsyncGenerator<never, void, void> {
    throw new Error("live only");
  }

  override async connect(_request: LlmRequest, options: GenerateContentOptions = {}): Promise<BaseLlmConnection> {
    await new Promise<void>((resolve) => {
      if (options.signal?.aborted) return resolve();
      options.signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    throw new Error("the waiting model never connects");
  }
}

/** Records the signal of each `loadArtifact` call and answers only once that signal aborts. */
class SignalRecordingArtifactService extends InMemoryArtifactService {
  readonly signals: (AbortSignal | undefined)[] = [];

  override async loadArtifact(request: LoadArtifactRequest & { signal?: AbortSignal }): Promise<Part | undefined> {
    const { signal } = request;
    this.signals.push(signal);
    await new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      signal?.addEventListener("abort", () => resolve(), { once: true });
    });
    return undefined;
  }
}

const flooding = new FloodingModel();
const logger = warningLogger();
const artifacts = new SignalRecordingArtifactService();
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    apps: {
      flood: new LlmAgent({ name: "flood", model: flooding }),
      waiting_live: new LlmAgent({ name: "waiting", model: new WaitingLiveModel(), instruction: "Wait." }),
    },
    artifactService: artifacts,
    logger,
    limits: { sseWriteTimeoutMs: SSE_WRITE_TIMEOUT_MS, live: { pingIntervalMs: PING_INTERVAL_MS } },
  });
});
afterAll(async () => {
  await t.close();
});

describe("a /run_sse client that stops reading", () => {
  it("has its run aborted after sseWriteTimeoutMs, freeing the session's turn, and its connection closed", async () => {
    expect(DEFAULT_SERVER_LIMITS.sseWriteTimeoutMs).toBe(30_000);
    // Made in the store: the stalled client's is the server's only connection.
    await t.sessionService.createSession({ appName: "flood", userId: "u", sessionId: "s" });
    const client = await rawClient(t.port);
    // Reads nothing from now on: the server's writes back up once the socket buffers are full.
    client.socket.pause();
    const body = JSON.stringify({
      appName: "flood",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("go"),
      streaming: true,
    });
    client.socket.write(
      `POST /run_sse HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    await until(() => flooding.aborted, BOUND_MS, "the stalled client's run to be aborted");
    // The client, reading nothing, cannot see the close: the server's count of connections does.
    await until(() => t.server.stats().connectionsOpen === 0, BOUND_MS, "the server to close the stalled connection");
    client.socket.destroy();
    // The session's turn is free: the next run on it is answered at once.
    const next = await within(
      post(`${t.url}/run`, { appName: "flood", userId: "u", sessionId: "s", newMessage: userMessage("again") }),
      BOUND_MS,
      "the next run on the session",
    );
    expect(next.status).toBe(200);
    const events = (await json(next)) as unknown as { content?: { parts?: { text?: string }[] } }[];
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("after");
    expect(logger.warnings).toEqual([
      {
        message: `The /run_sse client read nothing for ${SSE_WRITE_TIMEOUT_MS} ms; its run is aborted`,
        fields: expect.objectContaining({ appName: "flood", userId: "u", sessionId: "s" }),
      },
    ]);
    expect(logger.errors).toEqual([]);
  });
});

describe("/run_live pings", () => {
  const liveUrl = () => `${t.url.replace("http", "ws")}/run_live?app_name=waiting_live&user_id=u&session_id=live`;

  it("a socket that does not answer pings is terminated; one that answers stays open", async () => {
    expect(DEFAULT_SERVER_LIMITS.live.pingIntervalMs).toBe(30_000);
    await post(`${t.url}/apps/waiting_live/users/u/sessions`, { sessionId: "live" });
    await post(`${t.url}/apps/waiting_live/users/u2/sessions`, { sessionId: "live" });
    const silent = new WebSocket(liveUrl(), { autoPong: false });
    const answering = new WebSocket(liveUrl().replace("user_id=u&", "user_id=u2&"));
    for (const ws of [silent, answering]) ws.on("error", () => {});
    const silentClosed = new Promise<number>((resolve) => silent.once("close", (code) => resolve(code)));
    let answeringClosed = false;
    answering.once("close", () => (answeringClosed = true));
    let pings = 0;
    answering.on("ping", () => (pings += 1));
    await Promise.all([silent, answering].map((ws) => new Promise((resolve) => ws.once("open", resolve))));
    // Terminated: no close frame, so the client sees an abnormal closure.
    expect(await within(silentClosed, BOUND_MS, "the server to terminate the silent socket")).toBe(1006);
    await until(() => t.server.stats().live.sockets === 1, BOUND_MS, "the server to drop the silent socket");
    // The answering socket has been pinged several times and is still open.
    await until(() => pings >= 3, BOUND_MS, "three pings of the answering socket");
    expect(answeringClosed).toBe(false);
    expect(answering.readyState).toBe(WebSocket.OPEN);
    answering.close();
    await until(() => t.server.stats().live.sockets === 0, BOUND_MS, "the answering socket to close");
  });
});

describe("artifact routes", () => {
  it("pass the request's disconnect signal to the artifact service, aborted when the client leaves", async () => {
    const client = await rawClient(t.port);
    client.socket.write(
      `GET /apps/A/users/u/sessions/s/artifacts/note.txt HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n\r\n`,
    );
    await until(() => artifacts.signals.length === 1, BOUND_MS, "the artifact service to be asked");
    const signal = artifacts.signals[0];
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
    client.socket.destroy();
    await until(() => signal?.aborted === true, BOUND_MS, "the signal to abort when the client left");
  });
});
