// Session edits (PATCH, DELETE, rewind, fork) while the server shuts down, and when their client
// leaves before the session's turn comes: against the real server over HTTP and raw sockets.
import { describe, expect, it } from "@jest/globals";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService, LlmAgent } from "@agentkit/core";
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
    const { model, started, finish } = heldModel();
    const t = await startTestServer({ apps: { slow: new LlmAgent({ name: "slow", model }) } });
    try {
      // Made in the store: the only connections are the run's and the PATCH's.
      await t.sessionService.createSession({ appName: "slow", userId: "u", sessionId: "s" });
      const running = post(`${t.url}/run`, {
        appName: "slow",
        userId: "u",
        sessionId: "s",
        newMessage: userMessage("x"),
      });
      await started;
      // A raw connection: it closes when the test says so (fetch's abort may leave it open for seconds).
      const client = await rawClient(t.port);
      const body = JSON.stringify({ stateDelta: { left: true } });
      client.socket.write(
        `PATCH /apps/slow/users/u/sessions/s HTTP/1.1\r\nHost: 127.0.0.1:${t.port}\r\n` +
          `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      // Time for the PATCH to reach its handler and wait behind the run, so that a server that
      // ignores the disconnect applies it (had it not arrived yet, it would not be applied either).
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(t.server.stats().connectionsOpen).toBe(2);
      client.socket.destroy();
      await until(() => t.server.stats().connectionsOpen === 1, BOUND_MS, "the server to see the PATCH's client leave");
      expect(client.received()).toBe("");
      finish();
      expect((await running).status).toBe(200);
      // The session's turn is free again: a later PATCH is applied at once.
      const later = await within(
        send("PATCH", `${t.url}/apps/slow/users/u/sessions/s`, { stateDelta: { later: true } }),
        BOUND_MS,
        "a later PATCH",
      );
      expect(later.status).toBe(200);
      expect((await json(later)).state).toEqual({ later: true });
      expect(t.logger.errors).toEqual([]);
    } finally {
      finish();
      await t.close();
    }
  });
});
