// Runner cache and reloads, extra plugins and routers, modes, dev UI folder, graceful close.
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { Router } from "express";
import WebSocket from "ws";
import {
  App,
  BasePlugin,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  ModelRegistry,
  type Event,
  type InvocationContext,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";
import { ScriptedLiveModel, ScriptedModel } from "@agentkit/core/testing";
import { AppNotFoundError, createAgentServer, type AgentLoader, type LoadedApp } from "../src/index.js";
import { json, post, recordingLogger, startTestServer, userMessage } from "./support/test-server.js";

class CountingPlugin extends BasePlugin {
  events = 0;
  closes = 0;
  constructor(name: string) {
    super(name);
  }
  override onEventCallback(_args: { invocationContext: InvocationContext; event: Event }): undefined {
    this.events += 1;
    return undefined;
  }
  override async close(): Promise<void> {
    this.closes += 1;
  }
}

/** A loader whose app can be swapped, like the directory loader after a file change. */
class SwappableLoader implements AgentLoader {
  current: LoadedApp;
  closed = 0;
  constructor(app: LoadedApp) {
    this.current = app;
  }
  async listApps() {
    return [this.current.name];
  }
  async loadApp(name: string) {
    if (name !== this.current.name) throw new AppNotFoundError(name);
    return this.current;
  }
  async close() {
    this.closed += 1;
  }
}

const services = () => ({
  sessionService: new InMemorySessionService(),
  artifactService: new InMemoryArtifactService(),
  memoryService: new InMemoryMemoryService(),
});

/** A promise with its resolve function. */
function deferred(): Promise<void> & { resolve: () => void } {
  let resolve!: () => void;
  return Object.assign(new Promise<void>((r) => (resolve = r)), { resolve: () => resolve() });
}

/** A model step that answers `text` only once `release` resolves, reporting that it was called. */
function heldAnswer(text: string, called: { resolve: () => void }, release: Promise<void>) {
  return async () => {
    called.resolve();
    await release;
    return ScriptedModel.text(text);
  };
}

/** A model step that never answers: only the run's abort ends it. */
function untilAborted(called: { resolve: () => void }) {
  return (request: LlmRequest) =>
    new Promise<LlmResponse>((_, reject) => {
      const signal = request.config.abortSignal;
      signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      called.resolve();
    });
}

describe("runners per loaded app, reloads and extra plugins", () => {
  const modelV1 = new ScriptedModel();
  const modelV2 = new ScriptedModel();
  const appPluginV1 = new CountingPlugin("app_plugin");
  const appPluginV2 = new CountingPlugin("app_plugin");
  const tracing = new CountingPlugin("tracing");
  const loader = new SwappableLoader({
    name: "bot",
    rootAgent: new LlmAgent({ name: "v1", model: modelV1 }),
    app: new App({ name: "bot", rootAgent: new LlmAgent({ name: "v1", model: modelV1 }), plugins: [appPluginV1] }),
  });
  const svc = services();
  const server = createAgentServer({ loader, ...svc, plugins: [tracing], logger: recordingLogger() });
  let url = "";

  beforeAll(async () => {
    ({ url } = await server.listen());
  });
  afterAll(async () => {
    await server.close();
  });

  it("runs through the app's plugins plus the extra ones, one runner per loaded app", async () => {
    await post(`${url}/apps/bot/users/u/sessions`, { sessionId: "s" });
    modelV1.push(ScriptedModel.text("v1 says hi"));
    const res = await post(`${url}/run`, {
      appName: "bot",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("hi"),
    });
    expect(((await res.json()) as { author: string }[])[0]!.author).toBe("v1");
    expect(appPluginV1.events).toBe(1);
    expect(tracing.events).toBe(1);
    expect(await server.context.runnerFor("bot")).toBe(await server.context.runnerFor("bot"));
    // Extra plugins run first: they observe calls an app plugin might short-circuit.
    const runner = await server.context.runnerFor("bot");
    expect(runner.pluginManager.plugins.map((p) => p.name)).toEqual(["tracing", "app_plugin"]);
  });

  it("a reload builds a new runner; the old one closes after its in-flight run, shared plugins stay open", async () => {
    const before = await server.context.runnerFor("bot");
    const called = deferred();
    const release = deferred();
    modelV1.push(heldAnswer("slow v1 answer", called, release));
    const inflight = post(`${url}/run`, {
      appName: "bot",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("slow"),
    });
    await called; // the v1 run is in flight
    loader.current = {
      name: "bot",
      rootAgent: new LlmAgent({ name: "v2", model: modelV2 }),
      app: new App({ name: "bot", rootAgent: new LlmAgent({ name: "v2", model: modelV2 }), plugins: [appPluginV2] }),
    };
    const after = await server.context.runnerFor("bot");
    expect(after).not.toBe(before);
    expect(before.isClosed).toBe(false); // its run is still going
    release.resolve();
    const events = (await (await inflight).json()) as { content: { parts: { text: string }[] } }[];
    expect(events[0]!.content.parts[0]!.text).toBe("slow v1 answer");
    // The run released the old runner before its response was sent: closing has begun.
    expect(before.isClosed).toBe(true);
    await before.close(); // the close already under way (idempotent)
    expect(appPluginV1.closes).toBe(1);
    expect(tracing.closes).toBe(0);

    modelV2.push(ScriptedModel.text("v2 now"));
    const res = await post(`${url}/run`, {
      appName: "bot",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("again"),
    });
    expect(((await res.json()) as { author: string }[])[0]!.author).toBe("v2");
    expect(appPluginV2.events).toBe(1);
  });

  it("close() closes runners but not the loader, services or shared plugins", async () => {
    const runner = await server.context.runnerFor("bot");
    await server.close();
    expect(runner.isClosed).toBe(true);
    expect(appPluginV2.closes).toBe(1);
    expect(tracing.closes).toBe(0);
    expect(loader.closed).toBe(0);
    expect(await svc.sessionService.getSession({ appName: "bot", userId: "u", sessionId: "s" })).toBeDefined();
    await expect(fetch(`${url}/list-apps`)).rejects.toThrow();
  });
});

describe("model registry", () => {
  it("string model names resolve through the registry given to the server", async () => {
    const registry = new ModelRegistry();
    const scripted = new ScriptedModel({ model: "scripted-pro", steps: [ScriptedModel.text("from the registry")] });
    registry.register(/^scripted-/, () => scripted);
    const t = await startTestServer({
      modelRegistry: registry,
      apps: { named: new LlmAgent({ name: "named", model: "scripted-pro" }) },
    });
    try {
      await post(`${t.url}/apps/named/users/u/sessions`, { sessionId: "s" });
      const res = await post(`${t.url}/run`, {
        appName: "named",
        userId: "u",
        sessionId: "s",
        newMessage: userMessage("hi"),
      });
      expect(((await res.json()) as { content: { parts: { text: string }[] } }[])[0]!.content.parts[0]!.text).toBe(
        "from the registry",
      );
    } finally {
      await t.close();
    }
  });
});

describe("extra routers", () => {
  it("extraRouters and mount() sit before the JSON 404 and get the context", async () => {
    const t = await startTestServer({
      extraRouters: [
        Router().get("/dev/apps/:app/eval_sets", async (req, res) => {
          await t.server.context.loader.loadApp(req.params.app);
          res.json([]);
        }),
      ],
    });
    try {
      expect(await (await fetch(`${t.url}/dev/apps/A/eval_sets`)).json()).toEqual([]);
      expect((await fetch(`${t.url}/dev/apps/nope/eval_sets`)).status).toBe(404);
      t.server.mount(Router().get("/dev/apps/:app/build_graph", (req, res) => res.json({ name: req.params.app })));
      expect(await (await fetch(`${t.url}/dev/apps/A/build_graph`)).json()).toEqual({ name: "A" });
      expect((await fetch(`${t.url}/still/unknown`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it("a router factory is called once, when the Express app is built, and mounts in order", async () => {
    const made: string[] = [];
    const factory = (name: string) => () => {
      made.push(name);
      return Router().get(`/x/${name}`, (_req, res) => res.json({ name, made: [...made] }));
    };
    const t = await startTestServer({ extraRouters: [factory("first")] });
    try {
      t.server.mount(factory("second"));
      // Agent flows take the lean path: no app yet, so no router was made.
      const session = await post(`${t.url}/apps/A/users/u/sessions`, {});
      expect(session.status).toBe(200);
      expect(made).toEqual([]);
      // The first other request builds the app: every pending factory runs, in mount order.
      expect(await (await fetch(`${t.url}/x/second`)).json()).toEqual({ name: "second", made: ["first", "second"] });
      // Mounted after the build: made at once, still before the JSON 404.
      t.server.mount(factory("third"));
      expect(made).toEqual(["first", "second", "third"]);
      expect(await (await fetch(`${t.url}/x/third`)).json()).toMatchObject({ name: "third" });
      expect(await (await fetch(`${t.url}/x/first`)).json()).toMatchObject({ name: "first" });
      expect((await fetch(`${t.url}/x/fourth`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});

describe("modes and the dev UI folder", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentkit-devui-"));
    await mkdir(join(dir, "assets"), { recursive: true });
    await writeFile(
      join(dir, "index.html"),
      '<!doctype html><html><head><base href="./"><script src="main-ABC.js" ' +
        'type="module"></script></head><body><app-root></app-root></body></html>',
    );
    await writeFile(join(dir, "main-ABC.js"), "console.log('ui');");
    await writeFile(join(dir, "assets", "audio-processor.js"), "// worklet");
    await writeFile(join(dir, "assets", "index-B7YbSn6N.js"), "// hashed bundle");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("serves the UI folder with JavaScript types and a generated runtime config", async () => {
    const t = await startTestServer({ devUi: { dir, logo: { text: "Acme", imageUrl: "/logo.svg" } } });
    try {
      const page = await fetch(`${t.url}/dev-ui/`);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(await page.text()).toContain("<app-root>");
      for (const js of ["main-ABC.js", "assets/audio-processor.js"]) {
        const res = await fetch(`${t.url}/dev-ui/${js}`);
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
      }
      expect(await (await fetch(`${t.url}/dev-ui/assets/config/runtime-config.json`)).json()).toEqual({
        backendUrl: "",
        logo: { text: "Acme", imageUrl: "/logo.svg" },
      });
      // Content-hashed build assets are cached for good; the page and unhashed files revalidate.
      expect((await fetch(`${t.url}/dev-ui/assets/index-B7YbSn6N.js`)).headers.get("cache-control")).toBe(
        "public, max-age=31536000, immutable",
      );
      expect(page.headers.get("cache-control")).toBe("no-cache");
      expect((await fetch(`${t.url}/dev-ui/assets/audio-processor.js`)).headers.get("cache-control")).toBe("no-cache");
      const missing = await fetch(`${t.url}/dev-ui/nope.js`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get("content-type")).toMatch(/^application\/json/);
      expect((await fetch(`${t.url}/dev-ui/../../etc/passwd`)).status).toBe(404);
    } finally {
      await t.close();
    }
  });

  it("api mode serves the API without the UI", async () => {
    const t = await startTestServer({ mode: "api" });
    try {
      const root = await fetch(`${t.url}/`);
      expect(root.status).toBe(200);
      expect(await root.text()).toBe("OK");
      expect((await fetch(`${t.url}/dev-ui/`)).status).toBe(404);
      expect((await fetch(`${t.url}/list-apps`)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("bad options are a ConfigurationError", () => {
    expect(() => createAgentServer({} as never)).toThrow(/options.loader/);
    expect(() =>
      createAgentServer({
        loader: new SwappableLoader({ name: "x", rootAgent: new LlmAgent({ name: "x", model: new ScriptedModel() }) }),
        ...services(),
        mode: "gui" as never,
      }),
    ).toThrow(/mode/);
  });
});

describe("graceful close", () => {
  it("lets a short run finish, aborts a long one after the grace period, closes live sockets with an error frame and 1001", async () => {
    // The grace period is a timer by design: the short run needs a few ms of it after its model
    // answers; the endless one runs until it is aborted at its end.
    const GRACE_MS = 1000;
    const slow = new ScriptedModel();
    const endless = new ScriptedModel();
    const live = new ScriptedLiveModel();
    const t = await startTestServer({
      shutdownGraceMs: GRACE_MS,
      apps: {
        slow: new LlmAgent({ name: "slow", model: slow }),
        endless: new LlmAgent({ name: "endless", model: endless }),
        talk: new LlmAgent({ name: "talk", model: live }),
      },
    });
    for (const app of ["slow", "endless", "talk"])
      await post(`${t.url}/apps/${app}/users/u/sessions`, { sessionId: "s" });
    const shortCalled = deferred();
    const releaseShort = deferred();
    const endlessCalled = deferred();
    slow.push(heldAnswer("made it", shortCalled, releaseShort));
    endless.push(untilAborted(endlessCalled));
    const short = post(`${t.url}/run`, { appName: "slow", userId: "u", sessionId: "s", newMessage: userMessage("hi") });
    const long = post(`${t.url}/run_sse`, {
      appName: "endless",
      userId: "u",
      sessionId: "s",
      newMessage: userMessage("hi"),
    });
    const ws = new WebSocket(`${t.url.replace("http", "ws")}/run_live?app_name=talk&user_id=u&session_id=s`);
    const wsClosed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
    const wsFrames: unknown[] = [];
    ws.on("message", (data) => wsFrames.push(JSON.parse(data.toString())));
    await new Promise((resolve) => ws.once("open", resolve));
    await Promise.all([shortCalled, endlessCalled]); // both runs are in flight

    const started = Date.now();
    const closing = t.close();
    releaseShort.resolve(); // the short run ends during the grace period
    await closing;
    // Close waited out the grace period for the endless run (timers never fire early), then
    // aborted it: without the abort it would never end and close() would not return.
    expect(Date.now() - started).toBeGreaterThanOrEqual(GRACE_MS - 5);
    expect((await (await short).json()) as unknown[]).toHaveLength(1);
    const longRes = await long.catch((e: unknown) => e);
    if (longRes instanceof Response) expect(await longRes.text().catch(() => "")).not.toContain("never");
    expect(await wsClosed).toBe(1001);
    // The live client is told why before the close.
    expect(wsFrames.at(-1)).toEqual({
      error: "The server is shutting down; retry on another instance.",
      code: "SHUTTING_DOWN",
    });
    const session = await t.sessionService.getSession({ appName: "endless", userId: "u", sessionId: "s" });
    expect(session!.events.map((e) => e.author)).toEqual(["user"]);
    expect(t.logger.errors).toEqual([]);
  });

  it("an embedder's server keeps running: while draining, new runs get 503 JSON", async () => {
    const model = new ScriptedModel();
    const svc = services();
    const server = createAgentServer({
      loader: new SwappableLoader({ name: "A", rootAgent: new LlmAgent({ name: "a", model }) }),
      ...svc,
      shutdownGraceMs: 1000,
      logger: recordingLogger(),
    });
    // The embedder owns the HTTP server; the agent server only provides the app.
    const http = createServer(server.app);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    try {
      await post(`${url}/apps/A/users/u/sessions`, { sessionId: "s" });
      await post(`${url}/apps/A/users/u/sessions`, { sessionId: "s2" });
      const called = deferred();
      const release = deferred();
      model.push(heldAnswer("ok", called, release));
      const running = post(`${url}/run`, { appName: "A", userId: "u", sessionId: "s", newMessage: userMessage("hi") });
      await called; // in flight when the close begins
      const closing = server.close();
      const refused = await post(`${url}/run`, {
        appName: "A",
        userId: "u",
        sessionId: "s2",
        newMessage: userMessage("late"),
      });
      expect(refused.status).toBe(503);
      expect((await json(refused)).code).toBe("SHUTTING_DOWN");
      release.resolve(); // finishes within the grace period
      expect((await running).status).toBe(200);
      await closing;
      await expect(server.close()).resolves.toBeUndefined();
      await expect(server.listen()).rejects.toThrow(/closed/);
    } finally {
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("an embedder's server passes upgrades to handleUpgrade for /run_live", async () => {
    const server = createAgentServer({
      loader: new SwappableLoader({
        name: "A",
        rootAgent: new LlmAgent({ name: "a", model: new ScriptedLiveModel() }),
      }),
      ...services(),
      logger: recordingLogger(),
    });
    const http = createServer(server.app);
    http.on("upgrade", (req, socket, head) => server.handleUpgrade(req, socket, head));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const ws = new WebSocket(
        `ws://127.0.0.1:${(http.address() as AddressInfo).port}/run_live?app_name=A&user_id=u&session_id=missing`,
      );
      expect(await new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)))).toBe(1002);
    } finally {
      await server.close();
      await new Promise((resolve) => http.close(resolve));
    }
  });

  it("cannot listen twice", async () => {
    const t = await startTestServer();
    try {
      await expect(t.server.listen()).rejects.toThrow(/already listening/);
    } finally {
      await t.close();
    }
  });
});
