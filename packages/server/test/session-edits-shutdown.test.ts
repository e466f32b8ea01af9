// Session edits (PATCH, DELETE, rewind, fork) while the server shuts down, and when their client
// leaves before the session's turn comes: against the real server over HTTP and raw sockets.
import { describe, expect, it } from "@jest/globals";
import {
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  type ReleaseSessionLock,
  RunAbortedError,
  type SessionLock,
} from "@agentkit/core";
import { createAgentServer, createStaticAgentLoader } from "../src/index.js";
import { rawClient, until, within } from "./support/raw-socket.js";
import {
  heldModel,
  json,
  listenOn,
  post,
  recordingLogger,
  send,
  startTestServer,
  userMessage,
} from "./support/test-server.js";

/** A promise and the function that resolves it. */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** Generous bound for what must happen "at once" (a loaded CI machine), never a wait by itself. */
const BOUND_MS = 8000;

describe("session edits while the server shuts down, and when their client leaves", () => {
  it("PATCH, DELETE, rewind and fork are answered 503 SHUTTING_DOWN while draining, and change nothing", async () => {
    const held = heldModel();
    const sessionService = new InMemorySessionService();
    const server = createAgentServer({
      loader: createStaticAgentLoader({ apps: { slow: new LlmAgent({ name: "slow", model: held.model }) } }),
      sessionService,
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      shutdownGraceMs: 60_000,
      logger: recordingLogger(),
    });
    // An embedder's server: it keeps accepting requests while the agent server drains.
    const { url, close } = await listenOn(server.app);
    try {
      for (const sessionId of ["busy", "other"]) await post(`${url}/apps/slow/users/u/sessions`, { sessionId });
      const running = post(`${url}/run`, {
        appName: "slow",
        userId: "u",
        sessionId: "busy",
        newMessage: userMessage("x"),
      });
      await held.started;
      const closing = server.close();
      const session = `${url}/apps/slow/users/u/sessions/other`;
      const answers = [
        await send("PATCH", session, { stateDelta: { k: 1 } }),
        await send("DELETE", session),
        await post(`${session}/rewind`, { invocationId: "e-1" }),
        await post(`${session}/fork`, {}),
      ];
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.headers.get("retry-after")).toBe("1");
        expect(await json(answer)).toEqual({
          error: "The server is shutting down; retry on another instance.",
          detail: "The server is shutting down; retry on another instance.",
          code: "SHUTTING_DOWN",
        });
      }
      const kept = await sessionService.getSession({ appName: "slow", userId: "u", sessionId: "other" });
      expect(kept?.state).toEqual({});
      expect((await sessionService.listSessions({ appName: "slow", userId: "u" })).sessions).toHaveLength(2);
      held.finish();
      expect((await running).status).toBe(200);
      await closing;
    } finally {
      held.finish();
      await close();
    }
  });

  it("a PATCH whose client leaves while it waits for the session's turn is never applied", async () => {
    // The turn is held elsewhere (another replica's run holds the cluster lock): the PATCH's wait
    // for it is where the test can see it, so the client leaves exactly while it waits.
    const waits: { signal: AbortSignal | undefined; grant: () => void }[] = [];
    let waiting = signalled();
    let unlocks = 0;
    const sessionLock: SessionLock = {
      acquire: (_key, { signal }) =>
        new Promise<ReleaseSessionLock>((resolve, reject) => {
          if (signal?.aborted) return reject(new RunAbortedError({ cause: signal.reason }));
          signal?.addEventListener("abort", () => reject(new RunAbortedError({ cause: signal.reason })), {
            once: true,
          });
          waits.push({ signal, grant: () => resolve(async () => void (unlocks += 1)) });
          waiting.resolve();
        }),
      close: async () => {},
    };
    const t = await startTestServer({ sessionLock });
    try {
      await t.sessionService.createSession({ appName: "A", userId: "u", sessionId: "s" });
      // A raw connection: it closes when the test says so (fetch's abort may leave it open for seconds).
      const client = await rawClient(t.port);
      const body = JSON.stringify({ stateDelta: { left: true } });
      client.socket.write(
        `PATCH /apps/A/users/u/sessions/s HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      await within(waiting.promise, BOUND_MS, "the PATCH to wait for the session's turn");
      expect(waits[0]!.signal?.aborted).toBe(false);
      client.socket.destroy();
      await until(() => waits[0]!.signal?.aborted === true, BOUND_MS, "the PATCH's wait to end with its client");
      // Granting now (the other replica's run ended) must not apply it.
      waits[0]!.grant();
      await until(() => t.server.stats().connectionsOpen === 0, BOUND_MS, "the server to close the PATCH's connection");
      expect(client.received()).toBe("");
      expect((await t.sessionService.getSession({ appName: "A", userId: "u", sessionId: "s" }))?.state).toEqual({});
      // The session's turn is free again: a later PATCH waits for the lock once, and is applied.
      waiting = signalled();
      const later = send("PATCH", `${t.url}/apps/A/users/u/sessions/s`, { stateDelta: { later: true } });
      await within(waiting.promise, BOUND_MS, "the later PATCH to wait for the session's turn");
      waits[1]!.grant();
      const answer = await within(later, BOUND_MS, "a later PATCH");
      expect(answer.status).toBe(200);
      expect((await json(answer)).state).toEqual({ later: true });
      expect(unlocks).toBe(1);
      expect(t.logger.errors).toEqual([]);
    } finally {
      for (const wait of waits) wait.grant();
      await t.close();
    }
  });
});
