import { getEventListeners } from "node:events";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { InMemoryRunner, getTextOf } from "@agentkit/core";
import { startSilentServer } from "@agentkit/test-support/http-body-servers";
import { collect } from "@agentkit/test-support/collect";
import { A2AClientError, RemoteA2aAgent } from "../src/index.js";
import { startSdkServer } from "./helpers.js";

type Server = Awaited<ReturnType<typeof startSdkServer>>;

let server: Server;
beforeAll(async () => {
  server = await startSdkServer();
});
afterAll(async () => {
  await server.close();
});

/**
 * Timers the code under test starts with `setTimeout` while `work` runs, still pending when it
 * ends (neither cleared nor fired). Counted per timer rather than by the process's active
 * `Timeout`s: fetch's connection pool arms and disarms timers of its own on a schedule, which
 * made a process-wide count move by one under load.
 */
async function pendingTimersAfter(work: () => Promise<void>): Promise<number> {
  const pending = new Set<unknown>();
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  globalThis.setTimeout = ((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const timer = realSet(
      (...callArgs: unknown[]) => {
        pending.delete(timer);
        callback(...callArgs);
      },
      ms,
      ...args,
    );
    pending.add(timer);
    return timer;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((timer: Parameters<typeof clearTimeout>[0]) => {
    pending.delete(timer);
    realClear(timer);
  }) as typeof clearTimeout;
  try {
    await work();
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  return pending.size;
}

/** An agent whose every fetch (card and message calls) records the signal it was given. */
function recordingAgent(streaming: boolean) {
  const signals: AbortSignal[] = [];
  const agent = new RemoteA2aAgent({
    name: "remote",
    agentCard: server.url,
    streaming,
    timeoutMs: 60_000,
    fetch: (input, init) => {
      if (init?.signal) signals.push(init.signal);
      return fetch(input, init);
    },
  });
  return { agent, signals };
}

describe.each([true, false])("A RemoteA2aAgent call with timeoutMs (streaming=%s)", (streaming) => {
  it("fails with A2AClientError when the remote never answers", async () => {
    const silent = await startSilentServer();
    const card = {
      ...server.card,
      supportedInterfaces: server.card.supportedInterfaces.map((i) => ({ ...i, url: silent.url })),
    };
    const agent = new RemoteA2aAgent({ name: "remote", agentCard: card, streaming, timeoutMs: 300 });
    const runner = new InMemoryRunner({ agent, appName: "app" });
    try {
      const error = await collect(
        runner.runAsync({ userId: "u", sessionId: "s", newMessage: "echo hi", runConfig: { autoCreateSession: true } }),
      ).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(A2AClientError);
      expect((error as Error).message).toContain("timed out after 300 ms");
    } finally {
      await runner.close();
      await silent.close();
    }
  });

  it("leaves no listener, timer or dependent signal on the run's signal once it succeeds", async () => {
    const { agent, signals } = recordingAgent(streaming);
    const runner = new InMemoryRunner({ agent, appName: "app" });
    const controller = new AbortController();
    const listeners = getEventListeners(controller.signal, "abort").length;
    try {
      const texts: string[] = [];
      const pending = await pendingTimersAfter(async () => {
        for await (const event of runner.runAsync({
          userId: "u",
          sessionId: `s-${streaming}`,
          newMessage: "echo hello",
          signal: controller.signal,
          runConfig: { autoCreateSession: true },
        }))
          texts.push(getTextOf(event.content));
      });
      expect(texts.at(-1)).toBe("echo: hello");
      expect(getEventListeners(controller.signal, "abort").length).toBe(listeners);
      expect(pending).toBe(0);
      // The finished call's signals no longer follow the run's: aborting the run now reaches none.
      expect(signals.length).toBeGreaterThan(0);
      controller.abort();
      expect(signals.filter((s) => s.aborted).length).toBe(0);
    } finally {
      await runner.close();
    }
  });
});

it("releases the call when the consumer stops reading a stream early", async () => {
  const { agent, signals } = recordingAgent(true);
  const runner = new InMemoryRunner({ agent, appName: "app" });
  const controller = new AbortController();
  const listeners = getEventListeners(controller.signal, "abort").length;
  try {
    for await (const event of runner.runAsync({
      userId: "u",
      sessionId: "s-early",
      newMessage: "slow",
      signal: controller.signal,
      runConfig: { autoCreateSession: true },
    })) {
      expect(getTextOf(event.content)).toBe("working on it");
      // Mid-run the run (and the call) listen: the count after the stop is meaningful.
      expect(getEventListeners(controller.signal, "abort").length).toBeGreaterThan(listeners);
      break;
    }
    expect(getEventListeners(controller.signal, "abort").length).toBe(listeners);
    controller.abort();
    expect(signals.filter((s) => s.aborted).length).toBe(0);
  } finally {
    await runner.close();
  }
});
