// ADK's own API client (`AdkApiClient` of @google/adk-devtools 2.0.0, used unchanged) against
// agentkit's dev server: every method it has, over real HTTP and SSE.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { startDevServer, type RunningDevServer } from "../src/start-dev-server.js";
import { makeFixtureAgents, type FixtureAgents } from "./dev-ui/fixture-agents.js";
import { collect } from "@agentkit/test-support/collect";

interface Part {
  text?: string;
  functionCall?: { name: string; args?: Record<string, unknown> };
  functionResponse?: { name: string; response?: Record<string, unknown> };
  inlineData?: { mimeType: string; data: string };
}
interface AdkEvent {
  id: string;
  author: string;
  invocationId: string;
  partial?: boolean;
  content?: { role?: string; parts?: Part[] };
  actions?: { artifactDelta?: Record<string, number> };
  errorCode?: string;
  errorMessage?: string;
}
interface AdkSession {
  id: string;
  appName: string;
  userId: string;
  state: Record<string, unknown>;
  events: AdkEvent[];
}
interface SessionParams {
  appName: string;
  userId: string;
  sessionId: string;
}
/** The methods of ADK's client this test calls (the package ships no types for this file's path). */
interface AdkApiClient {
  listApps(): Promise<string[]>;
  createSession(params: {
    appName: string;
    userId: string;
    sessionId?: string;
    state?: Record<string, unknown>;
  }): Promise<AdkSession>;
  getSession(params: SessionParams): Promise<AdkSession>;
  listSessions(params: { appName: string; userId: string }): Promise<AdkSession[]>;
  listAllSessions(params: { userId: string }): Promise<AdkSession[]>;
  deleteSession(params: SessionParams): Promise<unknown>;
  runAsync(
    params: SessionParams & {
      newMessage: string | { role: string; parts: Part[] };
      streaming?: boolean;
      stateDelta?: Record<string, unknown>;
    },
  ): AsyncGenerator<AdkEvent>;
  listArtifacts(params: SessionParams): Promise<string[]>;
  loadArtifact(params: SessionParams & { artifactName: string; version?: number }): Promise<Part>;
  listArtifactVersions(params: SessionParams & { artifactName: string }): Promise<number[]>;
  deleteArtifact(params: SessionParams & { artifactName: string }): Promise<unknown>;
}

const clientFile = fileURLToPath(
  new URL("../node_modules/@google/adk-devtools/dist/esm/server/adk_api_client.js", import.meta.url),
);
let agents: FixtureAgents;
let server: RunningDevServer;
let client: AdkApiClient;

beforeAll(async () => {
  agents = await makeFixtureAgents();
  // Web mode, as developers run it: run failures then carry their message (exposeErrorMessages).
  server = await startDevServer({
    mode: "web",
    agentsDir: agents.dir,
    host: "127.0.0.1",
    port: 0,
    reload: false,
    allowOrigins: [],
    sessionServiceUri: "memory://",
    artifactServiceUri: "memory://",
    logLevel: "error",
    log: new Writable({ write: (_chunk, _enc, done) => done() }),
  });
  const { AdkApiClient } = (await import(pathToFileURL(clientFile).href)) as {
    AdkApiClient: new (config: { backendUrl: string }) => AdkApiClient;
  };
  client = new AdkApiClient({ backendUrl: server.url });
});

afterAll(async () => {
  await server?.close();
  await agents?.cleanup();
});

const parts = (events: AdkEvent[]) => events.flatMap((e) => e.content?.parts ?? []);

/**
 * DELETE answers 204 with no body (http-api.md section 8's choice, as ADK's own JS server does).
 * ADK's client parses every response as JSON, so its delete methods throw on that empty body
 * against its own server too; the deletion itself has happened, which the callers check.
 */
async function deleteWith204(call: () => Promise<unknown>): Promise<void> {
  await expect(call()).rejects.toThrow(/JSON/);
}

describe("ADK's AdkApiClient (@google/adk-devtools 2.0.0) against agentkit's server", () => {
  it("lists the apps", async () => {
    const apps = await client.listApps();
    expect(apps).toEqual(expect.arrayContaining(["tool_agent", "stream_agent", "artifact_agent", "error_agent"]));
    expect(apps).not.toContain("_shared");
  });

  it("creates sessions with a generated or a chosen id and initial state, gets and lists them", async () => {
    const generated = await client.createSession({ appName: "tool_agent", userId: "ada" });
    expect(generated).toMatchObject({ appName: "tool_agent", userId: "ada", events: [] });
    expect(generated.id).toMatch(/\S{8,}/);
    const chosen = await client.createSession({
      appName: "tool_agent",
      userId: "ada",
      sessionId: "chosen-1",
      state: { plan: "pro" },
    });
    expect(chosen).toMatchObject({ id: "chosen-1", state: { plan: "pro" } });
    expect(await client.getSession({ appName: "tool_agent", userId: "ada", sessionId: "chosen-1" })).toMatchObject({
      id: "chosen-1",
      state: { plan: "pro" },
    });
    const listed = await client.listSessions({ appName: "tool_agent", userId: "ada" });
    expect(listed.map((s) => s.id).sort()).toEqual([generated.id, "chosen-1"].sort());
    // listAllSessions walks every app of /list-apps.
    expect((await client.listAllSessions({ userId: "ada" })).map((s) => s.id).sort()).toEqual(
      [generated.id, "chosen-1"].sort(),
    );
    // A duplicate id is an error the client surfaces with the server's message.
    await expect(client.createSession({ appName: "tool_agent", userId: "ada", sessionId: "chosen-1" })).rejects.toThrow(
      /chosen-1/,
    );
    await expect(client.getSession({ appName: "tool_agent", userId: "ada", sessionId: "missing" })).rejects.toThrow(
      /not found/i,
    );
  });

  it("runs over /run_sse: a tool call, its response and the answer, then stored in the session", async () => {
    const session = await client.createSession({ appName: "tool_agent", userId: "ada" });
    const ids = { appName: "tool_agent", userId: "ada", sessionId: session.id };
    const events = await collect(
      client.runAsync({ ...ids, newMessage: "Weather in Paris?", stateDelta: { asked: true } }),
    );
    expect(parts(events).map((p) => p.functionCall?.name ?? p.functionResponse?.name ?? p.text)).toEqual([
      "get_weather",
      "get_weather",
      "It is sunny in Paris.",
    ]);
    expect(parts(events)[1]!.functionResponse!.response).toEqual({ city: "Paris", forecast: "sunny", celsius: 21 });
    expect(new Set(events.map((e) => e.invocationId)).size).toBe(1);
    const stored = await client.getSession(ids);
    // The user's message (from the client's createUserContent) and the three events, in order.
    expect(stored.events.map((e) => e.author)).toEqual(["user", "tool_agent", "tool_agent", "tool_agent"]);
    expect(stored.events[0]!.content).toEqual({ role: "user", parts: [{ text: "Weather in Paris?" }] });
    expect(stored.events.slice(1).map((e) => e.id)).toEqual(events.map((e) => e.id));
    expect(stored.state).toMatchObject({ asked: true });
  });

  it("streams partial events when asked, and stores only the final one", async () => {
    const session = await client.createSession({ appName: "stream_agent", userId: "ada" });
    const ids = { appName: "stream_agent", userId: "ada", sessionId: session.id };
    const events = await collect(client.runAsync({ ...ids, newMessage: "hi", streaming: true }));
    const partial = events.filter((e) => e.partial);
    expect(partial.map((e) => e.content?.parts?.[0]?.text)).toEqual(["Hello", " from the", " **stream**"]);
    expect(events.at(-1)).toMatchObject({ content: { parts: [{ text: "Hello from the **stream**" }] } });
    expect(events.at(-1)!.partial).toBeFalsy();
    expect((await client.getSession(ids)).events.filter((e) => e.author === "stream_agent")).toHaveLength(1);
  });

  it("gets a failed model call as an error event, and a run that fails mid-stream as the thrown error frame", async () => {
    const failed = await client.createSession({ appName: "error_agent", userId: "ada" });
    const events = await collect(
      client.runAsync({ appName: "error_agent", userId: "ada", sessionId: failed.id, newMessage: "hi" }),
    );
    expect(events.at(-1)).toMatchObject({ errorMessage: expect.stringContaining("the model exploded") });
    const crashed = await client.createSession({ appName: "crash_agent", userId: "ada" });
    await expect(
      collect(client.runAsync({ appName: "crash_agent", userId: "ada", sessionId: crashed.id, newMessage: "hi" })),
    ).rejects.toThrow(/the callback blew up/);
  });

  it("lists, loads, versions and deletes the artifacts a run saved", async () => {
    const session = await client.createSession({ appName: "artifact_agent", userId: "ada" });
    const ids = { appName: "artifact_agent", userId: "ada", sessionId: session.id };
    const events = await collect(client.runAsync({ ...ids, newMessage: "save it" }));
    expect(events.some((e) => e.actions?.artifactDelta?.["note.txt"] === 0)).toBe(true);
    await collect(client.runAsync({ ...ids, newMessage: "save it again" }));
    expect(await client.listArtifacts(ids)).toEqual(["note.txt"]);
    expect(await client.listArtifactVersions({ ...ids, artifactName: "note.txt" })).toEqual([0, 1]);
    const latest = await client.loadArtifact({ ...ids, artifactName: "note.txt" });
    expect(latest.inlineData?.mimeType).toBe("text/plain");
    expect(Buffer.from(latest.inlineData!.data, "base64").toString()).toBe("hello artifact");
    expect((await client.loadArtifact({ ...ids, artifactName: "note.txt", version: 0 })).inlineData?.data).toBe(
      latest.inlineData!.data,
    );
    await deleteWith204(() => client.deleteArtifact({ ...ids, artifactName: "note.txt" }));
    expect(await client.listArtifacts(ids)).toEqual([]);
    await expect(client.loadArtifact({ ...ids, artifactName: "note.txt" })).rejects.toThrow();
  });

  it("deletes a session (the client then trips over the 204's empty body, as against ADK's JS server)", async () => {
    const session = await client.createSession({ appName: "stream_agent", userId: "bob" });
    const ids = { appName: "stream_agent", userId: "bob", sessionId: session.id };
    await deleteWith204(() => client.deleteSession(ids));
    await expect(client.getSession(ids)).rejects.toThrow(/not found/i);
    expect(await client.listSessions({ appName: "stream_agent", userId: "bob" })).toEqual([]);
  });
});
