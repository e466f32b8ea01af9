// /run_live: sockets are capped (total, per client address, per user), each socket's queue is
// bounded, frames are refused once the session is closing, and nothing stays queued after close.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import {
  BaseLlm,
  LlmAgent,
  type BaseLlmConnection,
  type GenerateContentOptions,
  type LlmRequest,
} from "@agentkit/core";
import { BoundedLiveRequestQueue } from "../../src/live/bounded-live-request-queue.js";
import { post, startTestServer, type Json, type TestServer } from "../support/test-server.js";
import { until, within } from "../support/raw-socket.js";

const BOUND_MS = 8000;

/** A live model whose connect waits at a gate, so the client's frames pile up in the queue. */
class GatedLiveModel extends BaseLlm {
  private open!: () => void;
  private readonly gate = new Promise<void>((resolve) => (this.open = resolve));
  connecting = 0;

  constructor() {
    super({ model: "gated-live" });
  }

  release(): void {
    this.open();
  }

  // biome-ignore lint/correctness/useYield: a live-only model has no text calls.
  override async *generateContentAsync(): AsyncGenerator<never, void, void> {
    throw new Error("live only");
  }

  override async connect(_request: LlmRequest, options: GenerateContentOptions = {}): Promise<BaseLlmConnection> {
    this.connecting += 1;
    await Promise.race([
      this.gate,
      new Promise<void>((resolve) => options.signal?.addEventListener("abort", () => resolve(), { once: true })),
    ]);
    throw new Error("the gated model never connects");
  }
}

const gated = new GatedLiveModel();
let t: TestServer;
let capped: TestServer;

beforeAll(async () => {
  const apps = { gated_app: new LlmAgent({ name: "gated", model: gated, instruction: "Wait." }) };
  t = await startTestServer({
    apps,
    limits: {
      live: {
        maxSocketsPerClient: 2,
        maxSocketsPerUser: 1,
        maxQueuedFrames: 4,
        maxQueuedBytes: 64 * 1024,
        maxFrameBytes: 32 * 1024,
      },
    },
  });
  capped = await startTestServer({
    apps,
    limits: { live: { maxSockets: 1, maxSocketsPerClient: 0, maxSocketsPerUser: 0 } },
  });
  for (const server of [t, capped]) {
    for (const user of ["u1", "u2", "u3"])
      await post(`${server.url}/apps/gated_app/users/${user}/sessions`, { sessionId: "s" });
  }
});
afterAll(async () => {
  gated.release();
  await Promise.all([t.close(), capped.close()]);
});

interface Live {
  ws: WebSocket;
  frames: Json[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
function open(server: TestServer, user: string): Promise<Live> {
  const ws = new WebSocket(
    `${server.url.replace("http", "ws")}/run_live?app_name=gated_app&user_id=${user}&session_id=s`,
  );
  const frames: Json[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(data.toString()) as Json));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ ws, frames, closed }));
    ws.once("unexpected-response", (_req, res) =>
      reject(
        Object.assign(new Error(`HTTP ${res.statusCode}`), {
          status: res.statusCode,
          retryAfter: res.headers["retry-after"],
        }),
      ),
    );
    ws.once("error", reject);
  });
}

/** Closes `sockets` and waits until the server counts only `left` live sockets. */
async function closeAll(server: TestServer, sockets: Live[], left = 0): Promise<void> {
  for (const s of sockets) s.ws.close();
  await within(Promise.all(sockets.map((s) => s.closed)), BOUND_MS, "the sockets to close");
  await until(() => server.server.stats().live.sockets === left, BOUND_MS, "the server to release the sockets");
}

const frame = (text: string) => JSON.stringify({ content: { role: "user", parts: [{ text }] } });

describe("live socket caps", () => {
  it("refuses a second socket of one user and a third of one client address with 429; a closed one frees its slot", async () => {
    const first = await open(t, "u1");
    await expect(open(t, "u1")).rejects.toMatchObject({ status: 429, retryAfter: "2" });
    const second = await open(t, "u2");
    await expect(open(t, "u3")).rejects.toMatchObject({ status: 429 });
    expect(t.server.stats().live.sockets).toBe(2);
    await closeAll(t, [first], 1);
    const third = await open(t, "u3");
    await closeAll(t, [second, third]);
  });

  it("refuses sockets past the server's total with 503", async () => {
    const only = await open(capped, "u1");
    await expect(open(capped, "u2")).rejects.toMatchObject({ status: 503, retryAfter: "2" });
    await closeAll(capped, [only]);
    await closeAll(capped, [await open(capped, "u2")]);
  });
});

describe("live queues", () => {
  it("holds at most maxQueuedFrames for a run that does not take them, then closes with 1008 and drops them", async () => {
    const s = await open(t, "u1");
    await until(() => gated.connecting > 0, BOUND_MS, "the run to reach the model");
    for (let i = 0; i < 4; i++) s.ws.send(frame(`f${i}`));
    await until(() => t.server.stats().live.queuedFrames === 4, BOUND_MS, "four queued frames");
    s.ws.send(frame("one too many"));
    const { code, reason } = await within(s.closed, BOUND_MS, "the close");
    expect(code).toBe(1008);
    expect(reason).toMatch(/Too many frames waiting/);
    await until(() => t.server.stats().live.sockets === 0, BOUND_MS, "the server to release the socket");
    expect(t.server.stats().live).toEqual({ sockets: 0, queuedFrames: 0, queuedBytes: 0 });
  });

  it("bounds the bytes held too, and closes a frame over maxFrameBytes with 1009", async () => {
    const s = await open(t, "u1");
    const big = frame("x".repeat(30 * 1024));
    s.ws.send(big);
    s.ws.send(big);
    s.ws.send(big); // 3 × 30 KiB > 64 KiB
    expect((await within(s.closed, BOUND_MS, "the close")).code).toBe(1008);
    const huge = await open(t, "u1");
    huge.ws.send(frame("x".repeat(40 * 1024)));
    expect((await within(huge.closed, BOUND_MS, "the close")).code).toBe(1009);
    await until(() => t.server.stats().live.sockets === 0, BOUND_MS, "the server to release the sockets");
  });

  it("refuses frames once the client asked to close, and frees the queue when the client leaves", async () => {
    const s = await open(t, "u2");
    s.ws.send(frame("kept"));
    s.ws.send(JSON.stringify({ close: true }));
    s.ws.send(frame("too late"));
    await until(() => s.frames.length > 0, BOUND_MS, "the refusal frame");
    expect(s.frames[0]).toEqual({ error: "The live session is closing; the frame was not taken." });
    expect(t.server.stats().live.queuedFrames).toBeGreaterThan(0);
    await closeAll(t, [s]);
    expect(t.server.stats().live).toEqual({ sockets: 0, queuedFrames: 0, queuedBytes: 0 });
  });
});

describe("BoundedLiveRequestQueue", () => {
  it("counts what it holds, hands requests to waiting readers, and discard() drops everything", async () => {
    const queue = new BoundedLiveRequestQueue({ maxFrames: 2, maxBytes: 100 });
    expect(queue.offer([{ content: { parts: [{ text: "a" }] } }], 40)).toBe("queued");
    expect(queue.offer([{ content: { parts: [{ text: "b" }] } }], 70)).toBe("full");
    expect(queue.offer([{ content: { parts: [{ text: "b" }] } }], 60)).toBe("queued");
    expect(queue.offer([{ content: { parts: [{ text: "c" }] } }], 1)).toBe("full");
    expect([queue.pendingFrames, queue.pendingBytes]).toEqual([2, 100]);
    expect((await queue.get()).content?.parts?.[0]?.text).toBe("a");
    expect([queue.pendingFrames, queue.pendingBytes]).toEqual([1, 60]);
    queue.discard();
    expect([queue.pendingFrames, queue.pendingBytes, queue.isClosed]).toEqual([0, 0, true]);
    expect(await queue.get()).toEqual({ close: true });
    expect(queue.offer([{ content: { parts: [{ text: "d" }] } }], 1)).toBe("closed");

    const direct = new BoundedLiveRequestQueue({ maxFrames: 1, maxBytes: 10 });
    const reading = direct.get();
    expect(direct.offer([{ content: { parts: [{ text: "x" }] } }], 1000)).toBe("queued"); // straight to the reader
    expect((await reading).content?.parts?.[0]?.text).toBe("x");
    expect(direct.pendingBytes).toBe(0);
  });
});
