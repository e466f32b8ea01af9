import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { RemoteA2aAgent } from "@agentkit/a2a";
import { getTextOf, InMemoryRunner, type Event } from "@agentkit/core";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";

const examples = fileURLToPath(new URL("../../../examples/agents", import.meta.url));

describe("agentkit web --a2a", () => {
  const log: string[] = [];
  const data = mkdtempSync(join(tmpdir(), "agentkit-a2a-"));
  let server: RunningDevServer;
  beforeAll(async () => {
    // The examples' demo model answers offline; make sure no real key picks another model.
    for (const k of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "OLLAMA_HOST",
      "GOOGLE_API_KEY",
      "GEMINI_API_KEY",
      "AGENTKIT_EXAMPLE_MODEL",
    ])
      delete process.env[k];
    server = await startDevServer({
      mode: "api",
      agentsDir: examples,
      host: "127.0.0.1",
      port: 0,
      reload: false,
      allowOrigins: [],
      sessionServiceUri: "memory://",
      artifactServiceUri: "memory://",
      memoryServiceUri: "memory://",
      logLevel: "error",
      a2a: true,
      log: { write: (s: string) => log.push(s) } as unknown as NodeJS.WritableStream,
    });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(data, { recursive: true, force: true });
  });

  it("prints where the apps are served over A2A", () => {
    expect(log.join("")).toContain(`a2a: ${server.url}/a2a/{app}`);
  });

  it("serves each app's agent card with interface URLs under /a2a/{app}", async () => {
    const res = await fetch(`${server.url}/a2a/assistant/.well-known/agent-card.json`);
    expect(res.status).toBe(200);
    const card = (await res.json()) as {
      name: string;
      supportedInterfaces: { url: string; protocolBinding: string }[];
    };
    expect(card.name).toBe("assistant");
    expect(card.supportedInterfaces.map((i) => i.protocolBinding).sort()).toEqual(["HTTP+JSON", "JSONRPC"]);
    for (const i of card.supportedInterfaces) expect(i.url.startsWith(`${server.url}/a2a/assistant/`)).toBe(true);
  });

  it("answers an A2A client (agentkit's RemoteA2aAgent) with the app's agent", async () => {
    const remote = new RemoteA2aAgent({ name: "assistant_remote", agentCard: `${server.url}/a2a/assistant/` });
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
      const text = events
        .filter((e) => !e.partial)
        .map((e) => getTextOf(e.content))
        .join(" ");
      expect(text).toContain('You said: "hello over a2a"');
    } finally {
      await runner.close();
    }
  });

  it("answers an unknown app with the server's JSON 404", async () => {
    const res = await fetch(`${server.url}/a2a/nope/.well-known/agent-card.json`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/json/);
  });
});
