// /healthz, /readyz and shutdown that clients can tell apart from success (cut runs end with an
// SSE error frame or a 503 body), against the real server and a real (unreachable) PostgreSQL URI.
import { createServer } from "node:net";
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import WebSocket from "ws";
import {
  type AppendEventRequest,
  type Event,
  FunctionTool,
  type GenerateContentOptions,
  type GetSessionRequest,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  type Session,
  type SessionLock,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { PostgresSessionService } from "@agentkit/sessions/postgres";
import { createAgentServer, createStaticAgentLoader } from "../src/index.js";
import { rawClient, until, within } from "./support/raw-socket.js";
import {
  heldModel,
  json,
  listenOn,
  post,
  recordingLogger,
  startTestServer,
  userMessage,
  warningLogger,
} from "./support/test-server.js";

/**
 * Answers with a call of the `note` tool, then (on the next call) reports it started and waits
 * until the run is aborted.
 */
class StallingModel extends ScriptedModel {
  private markStarted!: () => void;
  readonly started = new Promise<void>((resolve) => (this.markStarted = resolve));

  constructor(text: string) {
    super();
    this.push(ScriptedModel.functionCall("note", { text }, `fc-${text}`));
  }

  override async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    options: GenerateContentOptions = {},
  ): AsyncGenerator<LlmResponse, void, void> {
    if (this.requests.length === 0) {
      yield* super.generateContentAsync(request, stream, options);
      return;
    }
    const signal = options.signal!;
    this.markStarted();
    await new Promise<never>((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener("abort", () => reject(signal.reason), { once: true });
    });
  }
}

const noteTool = new FunctionTool({
  name: "note",
  description: "Notes a thing.",
  parameters: z.object({ text: z.string() }),
  execute: ({ text }) => ({ noted: text }),
});

async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe("/healthz and /readyz", () => {
  it("answer 200 with each check's outcome when everything is reachable", async () => {
    const t = await startTestServer();
    try {
      const health = await fetch(`${t.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get("cache-control")).toBe("no-store");
      expect(await health.json()).toEqual({ status: "ok" });
      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(200);
      const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean }> };
      expect(body.status).toBe("ready");
      expect(Object.keys(body.checks).sort()).toEqual(["agents", "artifacts", "sessions"]);
      expect(Object.values(body.checks).every((c) => c.ok)).toBe(true);
    } finally {
      await t.close();
    }
  });

  it("/readyz is 503 naming the failed check when the session store is unreachable; /healthz stays 200", async () => {
    const port = await closedPort();
    const secret = "s3cr3t-pg-password";
    const sessionService = new PostgresSessionService({
      connectionString: `postgres://agentkit:${secret}@127.0.0.1:${port}/agentkit`,
      poolConfig: { connectionTimeoutMillis: 1000 },
    });
    const t = await startTestServer({ sessionService });
    try {
      expect((await fetch(`${t.url}/healthz`)).status).toBe(200);
      const ready = await fetch(`${t.url}/readyz`);
      expect(ready.status).toBe(503);
      const text = await ready.text();
      expect(text).not.toContain(secret);
      const body = JSON.parse(text) as { status: string; checks: Record<string, { ok: boolean; code?: string }> };
      expect(body.status).toBe("unavailable");
      expect(body.checks.sessions).toMatchObject({ ok: false, code: "SESSION_STORE_UNAVAILABLE" });
      expect(body.checks.agents).toMatchObject({ ok: true });
    } finally {
      await t.close();
      await sessionService.close();
    }
  });

  it("/readyz is 503 when an app does not load, and when a check of the caller's own times out", async () => {
    const broken = await startTestServer({
      apps: { broken: new LlmAgent({ name: "broken", model: "no-such-model" }) },
      readiness: { timeoutMs: 50, checks: { queue: () => new Promise(() => {}) } },
    });
    try {
      const ready = await fetch(`${broken.url}/readyz`);
      expect(ready.status).toBe(503);
      const body = (await ready.json()) as { checks: Record<string, { ok: boolean; code?: string }> };
      expect(body.checks.queue).toMatchObject({ ok: false, code: "READINESS_CHECK_TIMEOUT" });
    } finally {
      await broken.close();
    }
  });
});

describe("shutdown cuts long runs so that clients can tell", () => {
  it("/run_sse ends with a SHUTTING_DOWN error frame, /run with a 503 body, /readyz turns 503, and the store holds whole events", async () => {
    const sseModel = new StallingModel("a");
    const plainModel = new StallingModel("b");
    const t = await startTestServer({
      shutdownGraceMs: 0,
      apps: {
        streamer: new LlmAgent({ name: "streamer", model: sseModel, tools: [noteTool] }),
        plain: new LlmAgent({ name: "plain", model: plainModel, tools: [noteTool] }),
      },
    });
    for (const app of ["streamer", "plain"]) await post(`${t.url}/apps/${app}/users/u/sessions`, { sessionId: "s" });
    const streamed = post(`${t.url}/run_sse`, {
      appName: "streamer",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("go"),
    });
    const answered = post(`${t.url}/run`, {
      appName: "plain",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("go"),
    });
    await Promise.all([sseModel.started, plainModel.started]);
    expect((await fetch(`${t.url}/readyz`)).status).toBe(200);
    const closing = t.close();

    const stream = await streamed;
    expect(stream.status).toBe(200);
    const frames = (await stream.text())
      .split("\n\n")
      .filter(Boolean)
      .map((frame) => JSON.parse(frame.replace(/^data: /, "")) as Record<string, unknown>);
    expect(frames).toHaveLength(3);
    expect(frames[2]).toEqual({
      error: "The server is shutting down; retry on another instance.",
      code: "SHUTTING_DOWN",
    });

    const cut = await answered;
    expect(cut.status).toBe(503);
    expect(cut.headers.get("retry-after")).toBe("1");
    const body = (await json(cut)) as { code: string; events: { id: string }[] };
    expect(body.code).toBe("SHUTTING_DOWN");
    expect(body.events).toHaveLength(2);
    await closing;

    // What the clients saw is what was stored: the user's message and the complete events.
    const streamedSession = await t.sessionService.getSession({ appName: "streamer", userId: "u", sessionId: "s" });
    expect(streamedSession!.events.map((e) => e.id)).toEqual([
      streamedSession!.events[0]!.id,
      ...frames.slice(0, 2).map((f) => f.id),
    ]);
    const plainSession = await t.sessionService.getSession({ appName: "plain", userId: "u", sessionId: "s" });
    expect(plainSession!.events.slice(1).map((e) => e.id)).toEqual(body.events.map((e) => e.id));
    expect(plainSession!.events.some((e) => e.partial)).toBe(false);
    expect(t.logger.errors).toEqual([]);
  });

  it("while draining, /readyz is 503 and /healthz 200 (an embedder's server keeps accepting)", async () => {
    const { model, started, finish } = heldModel();
    const server = createAgentServer({
      loader: createStaticAgentLoader({ apps: { slow: new LlmAgent({ name: "slow", model }) } }),
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      shutdownGraceMs: 60_000,
      logger: recordingLogger(),
    });
    const { url, close } = await listenOn(server.app);
    try {
      await post(`${url}/apps/slow/users/u/sessions`, { sessionId: "s" });
      const running = post(`${url}/run`, {
        appName: "slow",
        userId: "u",
        sessionId: "s",
        newMessage: userMessage("x"),
      });
      await started;
      const closing = server.close();
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "draining", checks: {} });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      finish();
      expect((await running).status).toBe(200);
      await closing;
    } finally {
      await close();
    }
  });
});

/**
 * An in-memory store that hangs on request: the next `getSession` or the next stored
 * `appendEvent` (the user's message) never answers, as a store whose connection froze. Later
 * calls answer normally.
 */
class StallingSessionService extends InMemorySessionService {
  stallNext: "getSession" | "appendEvent" | undefined;
  /** Calls left hanging so far. */
  stalled = 0;

  override getSession(request: GetSessionRequest): Promise<Session | undefined> {
    if (this.stallNext === "getSession") return this.hang();
    return super.getSession(request);
  }

  override appendEvent(request: AppendEventRequest): Promise<Event> {
    if (this.stallNext === "appendEvent" && !request.event.partial) return this.hang();
    return super.appendEvent(request);
  }

  private hang(): Promise<never> {
    this.stallNext = undefined;
    this.stalled += 1;
    return new Promise<never>(() => {});
  }
}

/** How much later than its grace period `close()` may end (a loaded machine); far under the 2 s backstop. */
const CLOSE_MARGIN_MS = 1500;
/** Generous bound for what must happen "at once" (a loaded CI machine), never a wait by itself. */
const BOUND_MS = 8000;

describe("runs still starting end on an abort (a session store that does not answer)", () => {
  it("close() ends within the grace period when a /run waits on getSession, and the run is answered 503", async () => {
    const sessionService = new StallingSessionService();
    const t = await startTestServer({ sessionService, shutdownGraceMs: 200 });
    await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "s" });
    sessionService.stallNext = "getSession";
    const running = post(`${t.url}/run`, { appName: "A", userId: "u", sessionId: "s", newMessage: userMessage("hi") });
    await until(() => sessionService.stalled === 1, BOUND_MS, "the run to ask the store for its session");
    const started = performance.now();
    await within(t.close(), 200 + CLOSE_MARGIN_MS, "close() with a run waiting on the store");
    expect(performance.now() - started).toBeGreaterThanOrEqual(150);
    const cut = await running;
    expect(cut.status).toBe(503);
    expect(await json(cut)).toMatchObject({ code: "SHUTTING_DOWN" });
    expect(t.logger.errors).toEqual([]);
  });

  it("a client that disconnects while its run waits on getSession frees the session's turn for the next run", async () => {
    const sessionService = new StallingSessionService();
    const t = await startTestServer({ sessionService, shutdownGraceMs: 200 });
    try {
      await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "s" });
      sessionService.stallNext = "getSession";
      // A raw connection: it closes when the test says so (fetch's abort may leave it open for seconds).
      const client = await rawClient(t.port);
      const body = JSON.stringify({ appName: "A", userId: "u", sessionId: "s", newMessage: userMessage("first") });
      client.socket.write(
        `POST /run HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await until(() => sessionService.stalled === 1, BOUND_MS, "the first run to ask the store for its session");
      client.socket.destroy();
      t.model.push(ScriptedModel.text("second answer"));
      const second = await within(
        post(`${t.url}/run`, { appName: "A", userId: "u", sessionId: "s", newMessage: userMessage("second") }),
        BOUND_MS,
        "the second run on the session",
      );
      expect(second.status).toBe(200);
      const events = (await json(second)) as unknown as { content?: { parts?: { text?: string }[] } }[];
      expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("second answer");
      expect(t.logger.errors).toEqual([]);
    } finally {
      await within(t.close(), BOUND_MS, "close()");
    }
  });

  it("close() ends within the grace period when a /run_live socket waits on getSession", async () => {
    const sessionService = new StallingSessionService();
    const t = await startTestServer({ sessionService, shutdownGraceMs: 200 });
    await post(`${t.url}/apps/live_app/users/u/sessions`, { sessionId: "s" });
    sessionService.stallNext = "getSession";
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/run_live?app_name=live_app&user_id=u&session_id=s`);
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    ws.on("error", () => {});
    await until(() => sessionService.stalled === 1, BOUND_MS, "the live run to ask the store for its session");
    await within(t.close(), 200 + CLOSE_MARGIN_MS, "close() with a live run waiting on the store");
    expect(await within(closed, BOUND_MS, "the socket to close")).toBe(1001);
    expect(t.logger.errors).toEqual([]);
  });

  it("close() logs a run that does not end after its abort (a stalled append) and closes without it", async () => {
    const sessionService = new StallingSessionService();
    const logger = warningLogger();
    const t = await startTestServer({ sessionService, logger, shutdownGraceMs: 100 });
    await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "s" });
    sessionService.stallNext = "appendEvent";
    const running = post(`${t.url}/run`, { appName: "A", userId: "u", sessionId: "s", newMessage: userMessage("hi") })
      // The connection is closed under the stuck request.
      .catch(() => undefined);
    await until(() => sessionService.stalled === 1, BOUND_MS, "the run to append the user's message");
    await within(t.close(), 100 + 2000 + BOUND_MS, "close() with a run stuck in an append");
    await running;
    expect(logger.warnings).toEqual([
      {
        message: "A run did not end within 2000 ms of its abort by shutdown; closing without it",
        fields: { appName: "A", userId: "u", sessionId: "s" },
      },
    ]);
    expect(logger.errors).toEqual([]);
  });
});

describe("a cluster session lock whose store does not answer the unlock", () => {
  it("close() waits for the unlocks at most 2 s, warns, and closes", async () => {
    const logger = warningLogger();
    let unlocks = 0;
    const sessionLock: SessionLock = {
      acquire: async () => () => {
        unlocks += 1;
        return new Promise<void>(() => {});
      },
      close: async () => {},
    };
    const t = await startTestServer({ sessionLock, logger });
    await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "s" });
    t.model.push(ScriptedModel.text("done"));
    const run = await post(`${t.url}/run`, {
      appName: "A",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("hi"),
    });
    expect(run.status).toBe(200);
    expect(unlocks).toBe(1);
    await within(t.close(), 2000 + BOUND_MS, "close() with an unlock that never ends");
    expect(logger.warnings).toEqual([
      { message: "Session turns still held 2000 ms after shutdown; closing without them" },
    ]);
    expect(logger.errors).toEqual([]);
  });
});
