// `--a2a` with `--auth api-key`: the A2A mount needs credentials like every other route, each
// caller's runs are its own user's sessions, and one caller cannot read another's tasks.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { RemoteA2aAgent } from "@agentkit/a2a";
import { getTextOf, InMemoryRunner, type Event } from "@agentkit/core";
import { parseCliArgs } from "../src/parse-cli-args.js";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";

const examples = fileURLToPath(new URL("../../../examples/agents", import.meta.url));
const ALICE = "alice-key-0123456789abcdef";
const BOB = "bob-key-0123456789abcdef00";
const auth = (key: string) => ({ Authorization: `Bearer ${key}` });

let server: RunningDevServer;

beforeAll(async () => {
  for (const k of [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "OLLAMA_HOST",
    "GOOGLE_API_KEY",
    "GEMINI_API_KEY",
    "AGENTKIT_EXAMPLE_MODEL",
  ])
    delete process.env[k];
  const cli = parseCliArgs(
    ["api-server", examples, "--port", "0", "--a2a", "--auth", "api-key", "--session-service-uri", "memory://"],
    { AGENTKIT_API_KEYS: `${ALICE} alice\n${BOB} bob` },
  );
  if (cli.command !== "api-server") throw new Error("unexpected command");
  server = await startDevServer({
    ...cli.options,
    artifactServiceUri: "memory://",
    memoryServiceUri: "memory://",
    logLevel: "error",
    mode: "api",
    log: new Writable({ write: (_c, _e, done) => done() }),
  });
});
afterAll(async () => {
  await server?.close();
});

const card = (headers: Record<string, string> = {}) =>
  fetch(`${server.url}/a2a/assistant/.well-known/agent-card.json`, { headers });

/** POST message:send over HTTP+JSON as `key`; the task the server answers with. */
async function sendMessage(key: string, text: string, contextId?: string): Promise<{ id: string; contextId: string }> {
  const res = await fetch(`${server.url}/a2a/assistant/rest/message:send`, {
    method: "POST",
    headers: { ...auth(key), "Content-Type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }], ...(contextId ? { contextId } : {}) },
    }),
  });
  expect(res.status).toBeLessThan(300);
  const body = (await res.json()) as { task?: { id: string; contextId: string } };
  return body.task!;
}

describe("agentkit api-server --a2a --auth api-key", () => {
  it("the agent card and the A2A endpoints need credentials", async () => {
    expect((await card()).status).toBe(401);
    expect((await card(auth(ALICE))).status).toBe(200);
    const rpc = await fetch(`${server.url}/a2a/assistant/rest/message:send`, { method: "POST" });
    expect(rpc.status).toBe(401);
  });

  it("an A2A client with a token runs as its principal (agentkit's RemoteA2aAgent with a fetch adding the header)", async () => {
    const authedFetch: typeof fetch = (input, init) =>
      fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), ...auth(ALICE) } });
    const remote = new RemoteA2aAgent({
      name: "assistant_remote",
      agentCard: `${server.url}/a2a/assistant/`,
      fetch: authedFetch,
    });
    const runner = new InMemoryRunner({ agent: remote, appName: "client" });
    try {
      const session = await runner.sessionService.createSession({ appName: "client", userId: "u" });
      const events: Event[] = [];
      for await (const e of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text: "hello over a2a" }] },
      }))
        events.push(e);
      expect(events.map((e) => getTextOf(e.content)).join(" ")).toContain('You said: "hello over a2a"');
    } finally {
      await runner.close();
    }
    const sessions = async (user: string, key: string) =>
      (await (
        await fetch(`${server.url}/apps/assistant/users/${user}/sessions`, { headers: auth(key) })
      ).json()) as unknown[];
    expect(await sessions("alice", ALICE)).toHaveLength(1);
    expect(await sessions("bob", BOB)).toHaveLength(0);
  });

  it("a task is its sender's: bob cannot read alice's task, alice can", async () => {
    const task = await sendMessage(ALICE, "mine");
    const get = (key: string) =>
      fetch(`${server.url}/a2a/assistant/rest/tasks/${task.id}`, { headers: { ...auth(key), "A2A-Version": "1.0" } });
    expect((await get(ALICE)).status).toBe(200);
    const stolen = await get(BOB);
    expect(stolen.status).toBe(404);
    // Bob's message into alice's context runs in a session of bob's own: hers is unchanged.
    const events = async (user: string, key: string) =>
      (
        (await (
          await fetch(`${server.url}/apps/assistant/users/${user}/sessions/${task.contextId}`, { headers: auth(key) })
        ).json()) as { events: unknown[] }
      ).events.length;
    const hers = await events("alice", ALICE);
    const bobs = await sendMessage(BOB, "yours", task.contextId);
    expect(bobs.contextId).toBe(task.contextId);
    expect(await events("alice", ALICE)).toBe(hers);
    expect(await events("bob", BOB)).toBeGreaterThan(0);
  });
});
