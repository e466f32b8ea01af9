import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  BasePlugin,
  InMemoryRunner,
  RunAbortedError,
  getTextOf,
  type CallbackContext,
  type Event,
} from "@agentkit/core";
import {
  A2AClientError,
  AdkMetadataKey,
  AgentCardResolutionError,
  RemoteA2aAgent,
  type A2aTransportName,
} from "../src/index.js";
import express from "express";
import { AGENT_CARD_PATH } from "@a2a-js/sdk";
import { TRANSPORTS, listen, startSdkServer, type Listening } from "./helpers.js";
import { collect } from "@agentkit/test-support/collect";

type Server = Awaited<ReturnType<typeof startSdkServer>>;

describe.each(TRANSPORTS.flatMap((t) => [true, false].map((s) => [t, s] as const)))(
  "RemoteA2aAgent against a plain SDK server (%s, streaming=%s)",
  (transport, streaming) => {
    let server: Server;
    let runner: InMemoryRunner;
    let agent: RemoteA2aAgent;

    beforeAll(async () => {
      server = await startSdkServer();
      agent = new RemoteA2aAgent({
        name: "remote",
        agentCard: server.url,
        streaming,
        preferredTransports: [transport as A2aTransportName],
      });
      runner = new InMemoryRunner({ agent, appName: "app" });
    });
    afterAll(async () => {
      await runner.close();
      await server.close();
    });

    const run = async (sessionId: string, text: string) =>
      collect(runner.runAsync({ userId: "u", sessionId, newMessage: text, runConfig: { autoCreateSession: true } }));

    it("gets a plain message answer and keeps the context id for the next turn", async () => {
      const first = await run("s-echo", "echo hello");
      expect(first).toHaveLength(1);
      expect(first[0]!.author).toBe("remote");
      expect(getTextOf(first[0]!.content)).toBe("echo: hello");
      const contextId = first[0]!.customMetadata?.[AdkMetadataKey.CONTEXT_ID];
      expect(typeof contextId).toBe("string");
      expect(server.log.requests.at(-1)!.contextId).toBe(contextId);

      const second = await run("s-echo", "echo again");
      expect(getTextOf(second[0]!.content)).toBe("echo: again");
      // Only the new user message was sent, in the same A2A context.
      expect(server.log.requests.at(-1)!.text).toBe("echo again");
      expect(server.log.requests.at(-1)!.contextId).toBe(contextId);
    });

    it("turns artifact chunks into partial events and one complete event", async () => {
      const events = await run("s-stream", "stream");
      const complete = events.filter((e) => !e.partial);
      expect(complete.map((e) => getTextOf(e.content))).toEqual(["Hello world"]);
      if (streaming) expect(events.filter((e) => e.partial).map((e) => getTextOf(e.content))).toEqual(["Hel", "lo "]);
      else expect(events.some((e) => e.partial)).toBe(false);
      const session = await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s-stream" });
      expect(session!.events.filter((e) => e.author === "remote").map((e) => getTextOf(e.content))).toEqual([
        "Hello world",
      ]);
    });

    it("reads data parts: typed ones as function calls, others as JSON text", async () => {
      const events = await run("s-data", "data");
      const parts = events.flatMap((e) => e.content?.parts ?? []);
      expect(parts).toContainEqual({ text: JSON.stringify({ temperature: 21, unit: "C" }) });
      expect(parts).toContainEqual({ functionCall: { id: "call-1", name: "lookup", args: { q: "x" } } });
    });

    it("maps input-required to a waiting event and continues the same task on the next message", async () => {
      const first = await run("s-ask", "ask weather");
      const last = first.at(-1)!;
      expect(getTextOf(last.content)).toBe("Which city?");
      expect(last.customMetadata?.[AdkMetadataKey.TASK_STATE]).toBe("input-required");
      const taskId = last.customMetadata?.[AdkMetadataKey.TASK_ID];
      expect(typeof taskId).toBe("string");

      const second = await run("s-ask", "Paris");
      expect(server.log.requests.at(-1)).toMatchObject({ text: "Paris", taskId, hadTask: true });
      expect(getTextOf(second.find((e) => e.content)!.content)).toBe("Sunny in Paris");
      expect(second.at(-1)!.customMetadata?.[AdkMetadataKey.TASK_STATE]).not.toBe("input-required");

      // A completed task is not continued: the next message starts a new task in the same context.
      await run("s-ask", "echo x");
      expect(server.log.requests.at(-1)!.hadTask).toBe(false);
      expect(server.log.requests.at(-1)!.taskId).not.toBe(taskId);
    });

    it("maps a failed task to an error event with the remote error code", async () => {
      const events = await run("s-fail", "fail");
      const last = events.at(-1)!;
      expect(last.errorCode).toBe("REMOTE_BOOM");
      expect(last.errorMessage).toBe("boom");
    });
  },
);

describe("RemoteA2aAgent failures", () => {
  let server: Server;
  beforeAll(async () => {
    server = await startSdkServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("throws AgentCardResolutionError when the card cannot be fetched", async () => {
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: `${server.url}/missing/card.json` });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    try {
      const error = await collect(
        runner.runAsync({ userId: "u", sessionId: "s", newMessage: "hi", runConfig: { autoCreateSession: true } }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AgentCardResolutionError);
      expect((error as AgentCardResolutionError).code).toBe("AGENT_CARD_RESOLUTION_ERROR");
      expect((error as Error).message).toContain("HTTP 404");
    } finally {
      await runner.close();
    }
  });

  it("throws AgentCardResolutionError for an unreachable host and for an unreadable file", async () => {
    const unreachable = new RemoteA2aAgent({ name: "remote", agentCard: "http://127.0.0.1:9/" });
    await expect(unreachable.getAgentCard()).rejects.toMatchObject({ code: "AGENT_CARD_RESOLUTION_ERROR" });
    const file = new RemoteA2aAgent({ name: "remote", agentCard: "/nonexistent/agent-card.json" });
    await expect(file.getAgentCard()).rejects.toBeInstanceOf(AgentCardResolutionError);
  });

  it("rejects invalid options with a ConfigurationError", () => {
    expect(() => new RemoteA2aAgent({ name: "remote", agentCard: "" })).toThrow(/agentCard/);
    expect(() => new RemoteA2aAgent({ name: "remote", agentCard: server.url, timeoutMs: -1 })).toThrow(/timeoutMs/);
  });

  it("throws A2AClientError (with the cause) when the endpoint fails", async () => {
    const card = {
      ...server.card,
      supportedInterfaces: [{ ...server.card.supportedInterfaces[0]!, url: `${server.url}/nowhere` }],
    };
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: card, streaming: false });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    try {
      const error = await collect(
        runner.runAsync({ userId: "u", sessionId: "s", newMessage: "echo hi", runConfig: { autoCreateSession: true } }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AClientError);
      expect((error as A2AClientError).code).toBe("A2A_CLIENT_ERROR");
      expect((error as Error).cause).toBeDefined();
    } finally {
      await runner.close();
    }
  });

  it("times out with A2AClientError after timeoutMs", async () => {
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: server.card, timeoutMs: 300 });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    try {
      const error = await collect(
        runner.runAsync({ userId: "u", sessionId: "s", newMessage: "slow", runConfig: { autoCreateSession: true } }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AClientError);
      expect((error as Error).message).toContain("timed out after 300 ms");
    } finally {
      await runner.close();
    }
  });

  it("honours the run's AbortSignal and cancels the remote task", async () => {
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: server.card });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const controller = new AbortController();
    try {
      const seen: Event[] = [];
      const error = await (async () => {
        for await (const e of runner.runAsync({
          userId: "u",
          sessionId: "s-abort",
          newMessage: "slow",
          signal: controller.signal,
          runConfig: { autoCreateSession: true },
        })) {
          seen.push(e);
          controller.abort(); // after the first update ("working on it")
        }
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RunAbortedError);
      expect(getTextOf(seen[0]?.content)).toBe("working on it");
      const taskId = server.log.requests.at(-1)!.taskId;
      await waitFor(() => server.log.canceled.includes(taskId));
    } finally {
      await runner.close();
    }
  });
});

describe("RemoteA2aAgent card fetch shared by concurrent runs", () => {
  let server: Server;
  let slowCard: HeldCardServer;
  beforeAll(async () => {
    server = await startSdkServer();
    slowCard = await heldCardServer(server.url);
  });
  afterAll(async () => {
    await slowCard.close();
    await server.close();
  });

  const start = (runner: InMemoryRunner, sessionId: string, text: string, signal?: AbortSignal) =>
    collect(
      runner.runAsync({ userId: "u", sessionId, newMessage: text, signal, runConfig: { autoCreateSession: true } }),
    ).catch((e: unknown) => e);

  it("a run aborted during the first card fetch fails alone: the run that started with it completes", async () => {
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: slowCard.url, streaming: false });
    const entered = new Set<string>();
    const runner = new InMemoryRunner({ agent, appName: "app", plugins: [new AgentEntered(entered)] });
    try {
      const before = slowCard.fetches();
      slowCard.hold();
      const controller = new AbortController();
      // Run A starts the card fetch (with its signal); run B starts while it is under way and waits for it.
      const aborted = start(runner, "s-a", "echo a", controller.signal);
      await waitFor(() => slowCard.fetches() > before);
      const other = start(runner, "s-b", "echo b");
      await waitFor(() => entered.has("s-b"));
      // From the agent's entry to the shared fetch B only awaits promises (in-memory services):
      // once the event loop turns, it waits for the fetch A started.
      await new Promise((r) => setImmediate(r));
      controller.abort();
      expect(await aborted).toBeInstanceOf(RunAbortedError);
      slowCard.release();
      const events = await other;
      expect(events).not.toBeInstanceOf(Error);
      expect((events as Event[]).map((e) => getTextOf(e.content))).toEqual(["echo: b"]);
      expect(slowCard.fetches() - before).toBe(1); // one card fetch for both runs
    } finally {
      await runner.close();
    }
  });

  it("a card fetch abandoned by every run that waited for it is not reused: the next run fetches again", async () => {
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: slowCard.url, streaming: false });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    try {
      const before = slowCard.fetches();
      slowCard.hold();
      const controller = new AbortController();
      const aborted = start(runner, "s-a", "echo a", controller.signal);
      await waitFor(() => slowCard.fetches() > before);
      controller.abort();
      expect(await aborted).toBeInstanceOf(RunAbortedError);
      slowCard.release();
      const events = await start(runner, "s-b", "echo b");
      expect((events as Event[]).map((e) => getTextOf(e.content))).toEqual(["echo: b"]);
      expect(slowCard.fetches() - before).toBe(2);
    } finally {
      await runner.close();
    }
  });
});

/** Records the sessions whose run reached the agent. */
class AgentEntered extends BasePlugin {
  constructor(private readonly sessions: Set<string>) {
    super("agent_entered");
  }
  override beforeAgentCallback({ context }: { context: CallbackContext }): undefined {
    this.sessions.add(context.session.id);
    return undefined;
  }
}

type HeldCardServer = Listening & { fetches: () => number; hold: () => void; release: () => void };

/**
 * A server whose card endpoint holds each request made after `hold()` until `release()`, then
 * answers with `target`'s card; counts the requests.
 */
async function heldCardServer(target: string): Promise<HeldCardServer> {
  let fetches = 0;
  let gate = Promise.resolve();
  let release = () => {};
  const hold = () => {
    gate = new Promise<void>((r) => (release = r));
  };
  const app = express();
  app.get(`/${AGENT_CARD_PATH}`, async (_req, res) => {
    fetches += 1;
    await gate;
    const upstream = await fetch(`${target}/${AGENT_CARD_PATH}`);
    res
      .status(upstream.status)
      .type("application/json")
      .send(await upstream.text());
  });
  return { ...(await listen(app)), fetches: () => fetches, hold, release: () => release() };
}

/** Polls until `check` holds; no deadline of its own (a condition that never holds fails by the test timeout). */
async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}
