// ADK's own AdkApiClient (@google/adk-devtools 2.0.0, unchanged) against `agentkit web --auth
// api-key`. The client has no header option: it calls the global fetch, so this test gives
// fetch an Authorization header for the server's URL (what a proxy or a wrapped fetch does).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseCliArgs } from "../src/parse-cli-args.js";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";
import { makeFixtureAgents, type FixtureAgents } from "./dev-ui/fixture-agents.js";
import { collect } from "@agentkit/test-support/collect";

interface Part {
  text?: string;
  functionCall?: { name: string };
  functionResponse?: { name: string; response?: Record<string, unknown> };
  inlineData?: { mimeType: string; data: string };
}
interface AdkEvent {
  id: string;
  author: string;
  partial?: boolean;
  content?: { parts?: Part[] };
  actions?: { artifactDelta?: Record<string, number> };
}
interface AdkSession {
  id: string;
  userId: string;
  state: Record<string, unknown>;
  events: AdkEvent[];
}
type Ids = { appName: string; userId: string; sessionId: string };
interface AdkApiClient {
  listApps(): Promise<string[]>;
  createSession(params: {
    appName: string;
    userId: string;
    sessionId?: string;
    state?: Record<string, unknown>;
  }): Promise<AdkSession>;
  getSession(params: Ids): Promise<AdkSession>;
  listSessions(params: { appName: string; userId: string }): Promise<AdkSession[]>;
  runAsync(params: Ids & { newMessage: string; streaming?: boolean }): AsyncGenerator<AdkEvent>;
  listArtifacts(params: Ids): Promise<string[]>;
  loadArtifact(params: Ids & { artifactName: string; version?: number }): Promise<Part>;
  listArtifactVersions(params: Ids & { artifactName: string }): Promise<number[]>;
}

const clientFile = fileURLToPath(
  new URL("../node_modules/@google/adk-devtools/dist/esm/server/adk_api_client.js", import.meta.url),
);
const ADA = "ada-key-0123456789abcdef00";
const ROOT = "root-key-0123456789abcdef0";
let agents: FixtureAgents;
let server: RunningDevServer;
let client: AdkApiClient;
/** The key the wrapped fetch sends (undefined: none). */
let key: string | undefined = ADA;
const realFetch = globalThis.fetch;

beforeAll(async () => {
  agents = await makeFixtureAgents();
  const cli = parseCliArgs(["web", agents.dir, "--port", "0", "--no-reload", "--auth", "api-key"], {
    AGENTKIT_API_KEYS: `${ADA} ada; ${ROOT} root admin`,
  });
  if (cli.command !== "web") throw new Error("unexpected command");
  server = await startDevServer({
    ...cli.options,
    sessionServiceUri: "memory://",
    artifactServiceUri: "memory://",
    logLevel: "error",
    mode: "web",
    log: new Writable({ write: (_chunk, _enc, done) => done() }),
  });
  globalThis.fetch = (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (key === undefined || !url.startsWith(server.url)) return realFetch(input, init);
    const headers = new Headers(init?.headers);
    headers.set("Authorization", `Bearer ${key}`);
    return realFetch(input, { ...init, headers });
  };
  const { AdkApiClient } = (await import(pathToFileURL(clientFile).href)) as {
    AdkApiClient: new (config: { backendUrl: string }) => AdkApiClient;
  };
  client = new AdkApiClient({ backendUrl: server.url });
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await server?.close();
  await agents?.cleanup();
});

const parts = (events: AdkEvent[]) => events.flatMap((e) => e.content?.parts ?? []);

describe("ADK's AdkApiClient against agentkit web --auth api-key, with the key in a header", () => {
  it("lists the apps, creates, gets and lists its user's sessions", async () => {
    expect(await client.listApps()).toEqual(expect.arrayContaining(["tool_agent", "stream_agent", "artifact_agent"]));
    const created = await client.createSession({
      appName: "tool_agent",
      userId: "ada",
      sessionId: "a-1",
      state: { plan: "pro" },
    });
    expect(created).toMatchObject({ id: "a-1", userId: "ada", state: { plan: "pro" } });
    expect(await client.getSession({ appName: "tool_agent", userId: "ada", sessionId: "a-1" })).toMatchObject({
      id: "a-1",
    });
    expect((await client.listSessions({ appName: "tool_agent", userId: "ada" })).map((s) => s.id)).toEqual(["a-1"]);
  });

  it("runs over /run_sse: a tool call, its response and the answer; streaming too", async () => {
    const ids = { appName: "tool_agent", userId: "ada", sessionId: "a-1" };
    const events = await collect(client.runAsync({ ...ids, newMessage: "Weather in Paris?" }));
    expect(parts(events).map((p) => p.functionCall?.name ?? p.functionResponse?.name ?? p.text)).toEqual([
      "get_weather",
      "get_weather",
      "It is sunny in Paris.",
    ]);
    expect((await client.getSession(ids)).events).toHaveLength(4);
    const stream = await client.createSession({ appName: "stream_agent", userId: "ada" });
    const streamed = await collect(
      client.runAsync({
        appName: "stream_agent",
        userId: "ada",
        sessionId: stream.id,
        newMessage: "hi",
        streaming: true,
      }),
    );
    expect(streamed.filter((e) => e.partial).map((e) => e.content?.parts?.[0]?.text)).toEqual([
      "Hello",
      " from the",
      " **stream**",
    ]);
  });

  it("lists, loads and versions the artifacts a run saved", async () => {
    const session = await client.createSession({ appName: "artifact_agent", userId: "ada" });
    const ids = { appName: "artifact_agent", userId: "ada", sessionId: session.id };
    await collect(client.runAsync({ ...ids, newMessage: "save it" }));
    expect(await client.listArtifacts(ids)).toEqual(["note.txt"]);
    expect(await client.listArtifactVersions({ ...ids, artifactName: "note.txt" })).toEqual([0]);
    const note = await client.loadArtifact({ ...ids, artifactName: "note.txt" });
    expect(Buffer.from(note.inlineData!.data, "base64").toString()).toBe("hello artifact");
  });

  it("surfaces the server's refusals: another user's sessions (403), no key (401)", async () => {
    await expect(client.listSessions({ appName: "tool_agent", userId: "bob" })).rejects.toThrow(
      "This principal may only act for its own user.",
    );
    key = undefined;
    try {
      await expect(client.listApps()).rejects.toThrow(/Authentication required/);
    } finally {
      key = ADA;
    }
    key = ROOT;
    try {
      expect((await client.listSessions({ appName: "tool_agent", userId: "ada" })).map((s) => s.id)).toEqual(["a-1"]);
    } finally {
      key = ADA;
    }
  });
});
