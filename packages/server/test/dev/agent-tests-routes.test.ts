import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  FunctionTool,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  ModelRegistry,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createAppDevRouters, fileTelemetryConsent } from "../../src/devtools.js";
import { createAgentServer, createDirectoryAgentLoader, type AgentServer } from "../../src/index.js";
import { makeAgentsDir, type TempAgentsDir } from "../loader/agents-dir.js";
import { json, post, send, userMessage, type Json } from "../support/test-server.js";

// App `quiz`: a YAML agent on model "test-model" (a ScriptedModel through the registry) with
// the built-in tool get_weather, whose forecast the tests can change.
let forecast = "sunny";
const getWeather = new FunctionTool({
  name: "get_weather",
  description: "Weather of a city.",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, forecast }),
});
const model = new ScriptedModel();
let agents: TempAgentsDir;
let server: AgentServer;
let url: string;

beforeAll(async () => {
  agents = await makeAgentsDir({
    "quiz/root_agent.yaml":
      "name: quiz\nmodel: test-model\ninstruction: Answer about the weather.\ntools:\n  - get_weather\n",
  });
  const modelRegistry = new ModelRegistry().register("test-model", () => model);
  const loader = createDirectoryAgentLoader({
    agentsDir: agents.dir,
    reload: true,
    modelRegistry,
    builtInTools: { get_weather: getWeather },
  });
  // Where `agentkit web` keeps the answer, read back into the dev UI's runtime config.
  const telemetry = fileTelemetryConsent(join(agents.dir, ".agentkit", "telemetry.json"));
  server = createAgentServer({
    loader,
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    modelRegistry,
    mode: "web",
    devUi: { telemetryConsent: () => telemetry.read() },
  });
  for (const router of createAppDevRouters({ loader, modelRegistry, telemetry })) server.mountDevTools(router);
  ({ url } = await server.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await server.close();
  await agents.cleanup();
});

const base = () => `${url}/dev/apps/quiz/tests`;
const testFile = (name: string) => join(agents.dir, "quiz", "tests", name);

/** A real session of the app: the user asks, the model calls get_weather, then answers. */
async function recordSession(question: string, answer: string): Promise<Json> {
  const session = await json(await post(`${url}/apps/quiz/users/u/sessions`));
  model.push(ScriptedModel.functionCall("get_weather", { city: "Paris" }), ScriptedModel.text(answer));
  const run = await post(`${url}/run`, {
    appName: "quiz",
    userId: "u",
    sessionId: session.id,
    newMessage: userMessage(question),
  });
  expect(run.status).toBe(200);
  return json(await fetch(`${url}/apps/quiz/users/u/sessions/${session.id}`));
}

describe("agent tests routes", () => {
  it("saves a session as a test, lists it and reads it back (keys sorted)", async () => {
    expect(await json(await fetch(base()))).toEqual([]);
    const session = await recordSession("Weather in Paris?", "Sunny in Paris.");
    const put = await send("PUT", `${base()}/paris`, { session_data: session });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ status: "success", file: "paris.json" });
    expect(await json(await fetch(base()))).toEqual(["paris.json"]);
    const stored = await json(await fetch(`${base()}/paris.json`));
    expect(stored.events).toHaveLength(4);
    expect(Object.keys(stored)).toEqual([...Object.keys(stored)].sort());
    expect(await readFile(testFile("paris.json"), "utf8")).toMatch(/^\{\n {2}"appName": "quiz",/);
  });

  it("tests/run replays the recorded model answers (the model is not called) and reports PASSED", async () => {
    const calls = model.requests.length;
    const res = await post(`${base()}/run`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const report = await res.text();
    expect(report).toContain("agentkit tests: app quiz, 1 test file\n");
    expect(report).toContain("PASSED quiz/paris.json: 4 events\n");
    expect(report.endsWith("1 passed, 0 failed\n")).toBe(true);
    expect(model.requests.length).toBe(calls);
  });

  it("a changed tool result fails the replay, naming the event that differs", async () => {
    forecast = "rainy";
    try {
      const report = await (await post(`${base()}/run?test_name=paris`)).text();
      expect(report).toContain("FAILED quiz/paris.json: event 3 of 4 differs");
      expect(report).toMatch(/expected: .*"forecast":"sunny"/);
      expect(report).toMatch(/actual: {3}.*"forecast":"rainy"/);
      expect(report.endsWith("0 passed, 1 failed\n")).toBe(true);
    } finally {
      forecast = "sunny";
    }
  });

  it("a test whose agent asks for more model answers than recorded fails clearly", async () => {
    const session = (await json(await fetch(`${base()}/paris.json`))) as Json;
    const truncated = { ...session, events: (session.events as Json[]).slice(0, 2) };
    await send("PUT", `${base()}/short`, { session_data: truncated });
    const report = await (await post(`${base()}/run?test_name=short.json`)).text();
    expect(report).toContain(
      "FAILED quiz/short.json: The agent made model call 2, but the test recorded only 1 model responses.",
    );
  });

  it("tests/rebuild runs the user messages on the real model and rewrites the file; the replay then passes", async () => {
    model.push(
      ScriptedModel.functionCall("get_weather", { city: "Paris" }),
      ScriptedModel.text("Rebuilt: still sunny."),
    );
    const res = await post(`${base()}/rebuild?test_name=paris`);
    expect(await res.json()).toEqual({ status: "success", rebuilt: ["paris.json"], errors: [] });
    const rebuilt = (await json(await fetch(`${base()}/paris.json`))) as Json;
    const text = JSON.stringify(rebuilt);
    expect(text).toContain("Rebuilt: still sunny.");
    expect(text).toContain('"id":"fc-1"');
    expect(rebuilt.lastUpdateTime).toBeUndefined();
    expect(model.remaining).toBe(0);
    const report = await (await post(`${base()}/run?test_name=paris`)).text();
    expect(report).toContain("PASSED quiz/paris.json");
  });

  it("deletes tests; unknown tests are 404, bad names and bodies 400, unknown apps 404", async () => {
    expect(await json(await send("DELETE", `${base()}/short.json`))).toEqual({ status: "success" });
    expect(existsSync(testFile("short.json"))).toBe(false);
    expect((await send("DELETE", `${base()}/short.json`)).status).toBe(404);
    const missing = await fetch(`${base()}/nope`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).code).toBe("TEST_NOT_FOUND");
    expect((await post(`${base()}/run?test_name=nope`)).status).toBe(404);
    for (const name of ["..", ".hidden", "a%5Cb"]) {
      const res = await fetch(`${base()}/${name}`);
      expect([400, 404]).toContain(res.status);
      if (name !== "..") expect((await json(res)).code).toBe("INVALID_TEST_NAME");
    }
    const noData = await send("PUT", `${base()}/x`, { events: [] });
    expect(noData.status).toBe(400);
    expect((await json(noData)).error).toMatch(/sessionData/);
    expect((await send("PUT", `${url}/dev/apps/ghost/tests/x`, { session_data: { events: [] } })).status).toBe(404);
    expect((await post(`${url}/dev/apps/ghost/tests/run`)).status).toBe(404);
  });

  it("a test file that is not JSON answers 422; one without events fails its replay", async () => {
    await writeFile(testFile("broken.json"), "{ not json");
    const res = await fetch(`${base()}/broken.json`);
    expect(res.status).toBe(422);
    expect((await json(res)).code).toBe("INVALID_TEST_FILE");
    await writeFile(testFile("broken.json"), JSON.stringify({ events: [] }));
    const report = await (await post(`${base()}/run?test_name=broken`)).text();
    expect(report).toContain("FAILED quiz/broken.json: The test holds no events");
  });
});

describe("telemetry consent: /config/telemetry", () => {
  it("is null until answered, needs the X-ADK-Telemetry-Request header, persists under .agentkit and reaches runtime-config.json", async () => {
    expect(await json(await fetch(`${url}/config/telemetry`))).toEqual({ telemetry: null });
    const noHeader = await post(`${url}/config/telemetry`, { telemetry: true });
    expect(noHeader.status).toBe(400);
    expect((await json(noHeader)).code).toBe("MISSING_TELEMETRY_HEADER");
    const bad = await post(`${url}/config/telemetry`, { telemetry: "yes" }, { "X-ADK-Telemetry-Request": "true" });
    expect(bad.status).toBe(400);
    const ok = await post(`${url}/config/telemetry`, { telemetry: false }, { "X-ADK-Telemetry-Request": "true" });
    expect(await ok.json()).toEqual({ telemetry: false });
    expect(await json(await fetch(`${url}/config/telemetry`))).toEqual({ telemetry: false });
    expect(JSON.parse(await readFile(join(agents.dir, ".agentkit", "telemetry.json"), "utf8"))).toEqual({
      telemetry: false,
    });
    expect(await json(await fetch(`${url}/dev-ui/assets/config/runtime-config.json`))).toEqual({
      backendUrl: "",
      telemetry: false,
    });
  });
});
