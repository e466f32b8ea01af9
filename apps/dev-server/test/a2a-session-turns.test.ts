// `agentkit web --a2a`: A2A runs are admitted as the server's own runs are (ServerContext.admitRun):
// they take turns with /run calls on one session, so two runs never append to one session at
// once, and shutdown waits for them, then aborts them.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { randomUUID } from "node:crypto";
import { getTextOf, type Event } from "@agentkit/core";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";
import { tempAgentsDir, type TempAgentsDir } from "./support/cli-process.js";

// An echo model that takes a few milliseconds per call, so that runs which do not take turns
// overlap: one appends while another has read the session before it (a stale append, a 409 or a
// failed task) or answers between another's message and its answer.
const SLOW_ECHO_APP = `import { BaseLlm, LlmAgent } from "@agentkit/core";
class SlowEcho extends BaseLlm {
  constructor() { super({ model: "slow-echo" }); }
  async *generateContentAsync(request) {
    await new Promise((resolve) => setTimeout(resolve, 15));
    const last = request.contents[request.contents.length - 1];
    const text = last.parts.map((p) => p.text ?? "").join("");
    yield { content: { role: "model", parts: [{ text: \`You said: "\${text}"\` }] } };
  }
}
export const rootAgent = new LlmAgent({ name: "slow_echo", model: new SlowEcho() });
`;

/** `agentkit api-server --a2a` on the agents folder, in-memory services, no warm-up. */
function startA2aServer(agentsDir: string): Promise<RunningDevServer> {
  return startDevServer({
    mode: "api",
    agentsDir,
    host: "127.0.0.1",
    port: 0,
    reload: false,
    allowOrigins: [],
    warmUp: false,
    sessionServiceUri: "memory://",
    artifactServiceUri: "memory://",
    memoryServiceUri: "memory://",
    logLevel: "error",
    a2a: true,
    log: { write: () => true } as unknown as NodeJS.WritableStream,
  });
}

describe("agentkit web --a2a: A2A messages and /run calls on one session", () => {
  let agents: TempAgentsDir;
  let server: RunningDevServer;
  beforeAll(async () => {
    agents = tempAgentsDir("agentkit-a2a-turns-");
    agents.write("slow_echo/agent.ts", SLOW_ECHO_APP);
    server = await startA2aServer(agents.dir);
  });
  afterAll(async () => {
    await server?.close();
    agents?.remove();
  });

  it("take turns: every run completes, each message is followed by its own answer", async () => {
    const contextId = `ctx-${randomUUID()}`;
    const userId = `A2A_USER_${contextId}`; // the A2A user of an unauthenticated server
    const created = await fetch(`${server.url}/apps/slow_echo/users/${userId}/sessions/${contextId}`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(created.status).toBe(200);
    const a2a = async (text: string) => {
      const res = await fetch(`${server.url}/a2a/slow_echo/rest/message:send`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }], contextId } }),
      });
      const body = (await res.json()) as { task?: { status?: { state?: string } } };
      return { status: res.status, state: body.task?.status?.state };
    };
    const run = async (text: string) => {
      const res = await fetch(`${server.url}/run`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          appName: "slow_echo",
          userId,
          sessionId: contextId,
          newMessage: { role: "user", parts: [{ text }] },
        }),
      });
      await res.arrayBuffer();
      return { status: res.status, state: "ran" };
    };
    const texts = Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? `over a2a ${i}` : `over run ${i}`));
    const answers = await Promise.all(texts.map((text, i) => (i % 2 === 0 ? a2a(text) : run(text))));
    expect(answers).toEqual(
      texts.map((_, i) => ({ status: 200, state: i % 2 === 0 ? "TASK_STATE_COMPLETED" : "ran" })),
    );
    const session = (await (
      await fetch(`${server.url}/apps/slow_echo/users/${userId}/sessions/${contextId}`)
    ).json()) as { events: Event[] };
    const messages = session.events.flatMap((e, i) => (e.author === "user" ? [i] : []));
    expect(messages.map((i) => getTextOf(session.events[i]!.content)).sort()).toEqual([...texts].sort());
    for (const i of messages) {
      const said = getTextOf(session.events[i]!.content);
      expect(getTextOf(session.events[i + 1]!.content)).toBe(`You said: "${said}"`);
    }
  });
});

// A model that answers only after ten seconds, or fails at once when its call is aborted; it
// counts, on globalThis (the agent runs in the test's process), the calls started and aborted.
const NEVER_ANSWERS_APP = `import { BaseLlm, LlmAgent } from "@agentkit/core";
const seen = (globalThis.__neverAnswers ??= { started: 0, aborted: 0 });
class NeverAnswers extends BaseLlm {
  constructor() { super({ model: "never-answers" }); }
  async *generateContentAsync(request, stream, options) {
    seen.started++;
    const signal = options?.signal ?? request.config.abortSignal;
    await new Promise((resolve, reject) => {
      const timer = setTimeout(resolve, 10_000);
      signal?.addEventListener("abort", () => {
        clearTimeout(timer);
        seen.aborted++;
        reject(signal.reason);
      });
    });
    yield { content: { role: "model", parts: [{ text: "too late" }] } };
  }
}
export const rootAgent = new LlmAgent({ name: "never_answers", model: new NeverAnswers() });
`;

describe("agentkit web --a2a: shutdown and a running A2A task", () => {
  let agents: TempAgentsDir;
  afterAll(() => agents?.remove());

  it("close aborts a running A2A task's run once the grace period is over", async () => {
    agents = tempAgentsDir("agentkit-a2a-close-");
    agents.write("never_answers/agent.ts", NEVER_ANSWERS_APP);
    const server = await startA2aServer(agents.dir);
    const seen = () => (globalThis as { __neverAnswers?: { started: number; aborted: number } }).__neverAnswers;
    const sent = fetch(`${server.url}/a2a/never_answers/rest/message:send`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ message: { messageId: "m-close", role: "ROLE_USER", parts: [{ text: "hi" }] } }),
    }).then(
      async (res) => ((await res.json()) as { task?: { status?: { state?: string } } }).task?.status?.state,
      () => "connection closed",
    );
    while (!seen()?.started) await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    // The run was aborted by the shutdown (not left running after the close).
    expect(seen()).toEqual({ started: 1, aborted: 1 });
    expect(["TASK_STATE_FAILED", "connection closed"]).toContain(await sent);
  }, 20_000);
});
