import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import express from "express";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService } from "@agentkit/core";
import { ADMIN_SCOPE, setPrincipal } from "../../src/auth/principal.js";
import { devToolsGate } from "../../src/http/dev-tools-gate.js";
import {
  createAgentServer,
  createDirectoryAgentLoader,
  createGraphRouter,
  type AgentLoader,
  type AgentServer,
  type AgentServerOptions,
} from "../../src/index.js";
import {
  createAppDevRouters,
  createDebugRouter,
  createEvalRouter,
  createInMemoryEvalStore,
  createTraceRecorder,
  memoryTelemetryConsent,
} from "../../src/devtools.js";
import { makeAgentsDir, type TempAgentsDir } from "../loader/agents-dir.js";
import { json } from "../support/test-server.js";

// The dev tooling gate (http/dev-tools-gate.ts) over HTTP: every dev route answers 403 unless
// the principal is an admin, or the server has no authentication and is bound to loopback.

const traces = createTraceRecorder();
let agents: TempAgentsDir;
let loader: AgentLoader;
const closers: (() => Promise<void>)[] = [];

/** Every dev route family, with a request that would succeed for an allowed caller. */
const DEV_REQUESTS: [method: string, path: string][] = [
  ["GET", "/dev/apps/pipeline/builder"],
  ["GET", "/dev/apps/pipeline/builder?tmp=true"],
  ["POST", "/dev/apps/pipeline/builder/cancel"],
  ["GET", "/dev/apps/pipeline/tests"],
  ["GET", "/config/telemetry"],
  ["GET", "/debug/trace/session/s1"],
  ["GET", "/dev/apps/pipeline/debug/trace/session/s1"],
  ["GET", "/dev/apps/pipeline/eval_sets"],
  ["GET", "/apps/pipeline/eval_sets"],
  ["GET", "/dev/apps/pipeline/metrics-info"],
];

/** A web server over the agents directory with the dev server's dev tools (builder, tests, telemetry, traces, evals). */
function makeServer(extra: Partial<AgentServerOptions> = {}): AgentServer {
  const server = createAgentServer({
    loader,
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "web",
    ...extra,
  });
  for (const router of createAppDevRouters({ loader, telemetry: memoryTelemetryConsent() }))
    server.mountDevTools(router);
  server.mountDevTools(createDebugRouter({ traces }));
  server.mountDevTools(createEvalRouter({ ...server.context, evalStore: createInMemoryEvalStore() }));
  return server;
}

/**
 * Serves `server.app` on 127.0.0.1 behind a stand-in for the authentication middleware: the
 * `x-test-scopes` header becomes the principal's scopes (absent: no principal).
 */
async function serveWithPrincipal(server: AgentServer): Promise<string> {
  const outer = express();
  outer.use((req, res, next) => {
    const scopes = req.headers["x-test-scopes"];
    if (typeof scopes === "string") setPrincipal(res, { userId: "u", scopes: scopes ? scopes.split(",") : [] });
    next();
  });
  outer.use(server.app);
  const http: Server = createServer(outer);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  closers.push(async () => {
    http.closeAllConnections();
    await new Promise((resolve) => http.close(resolve));
    await server.close();
  });
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
}

const call = (url: string, [method, path]: [string, string], headers: Record<string, string> = {}) =>
  fetch(`${url}${path}`, { method, headers });

beforeAll(async () => {
  agents = await makeAgentsDir({ "pipeline/root_agent.yaml": "name: pipeline\nmodel: some-model\n" });
  loader = createDirectoryAgentLoader({ agentsDir: agents.dir });
});
afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await loader.close();
  await traces.shutdown();
  await agents.cleanup();
});

describe("a server bound to a non-loopback address", () => {
  let url: string;
  beforeAll(async () => {
    // Told it is bound to every interface; served on 127.0.0.1 here so no test opens a public port.
    const server = makeServer({ host: "0.0.0.0" });
    server.mount(createGraphRouter(server.context));
    url = await serveWithPrincipal(server);
  });

  it("answers 403 JSON on every dev route without a principal, and writes nothing", async () => {
    for (const request of DEV_REQUESTS) {
      const res = await call(url, request);
      expect([request, res.status]).toEqual([request, 403]);
      const body = await json(res);
      expect(body.code).toBe("FORBIDDEN");
      expect(body.error).toMatch(/dev tooling routes need an admin principal/);
    }
    const form = new FormData();
    form.append("files", new Blob(["name: pipeline\nmodel: other\n"]), "pipeline/root_agent.yaml");
    const save = await fetch(`${url}/dev/apps/pipeline/builder/save`, { method: "POST", body: form });
    expect(save.status).toBe(403);
    const put = await fetch(`${url}/dev/apps/pipeline/tests/t1`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ session_data: { events: [] } }),
    });
    expect(put.status).toBe(403);
    expect(existsSync(join(agents.dir, "pipeline", "tests"))).toBe(false);
    expect(existsSync(join(agents.dir, "pipeline", "tmp"))).toBe(false);
  });

  it("answers 403 to a principal without the admin scope", async () => {
    for (const request of DEV_REQUESTS)
      expect((await call(url, request, { "x-test-scopes": "runs" })).status).toBe(403);
  });

  it("serves every dev route to an admin principal", async () => {
    for (const request of DEV_REQUESTS) {
      const res = await call(url, request, { "x-test-scopes": ADMIN_SCOPE });
      expect([request, res.status]).toEqual([request, 200]);
    }
  });

  it("leaves the other routes alone: the API, the graph routes and the JSON 404", async () => {
    expect((await fetch(`${url}/list-apps`)).status).toBe(200);
    expect((await fetch(`${url}/dev/apps/pipeline/build_graph`)).status).toBe(200);
    const missing = await fetch(`${url}/no/such/route`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).code).toBe("NOT_FOUND");
  });
});

describe("a server bound to loopback", () => {
  it("serves the dev routes without authentication", async () => {
    const server = makeServer();
    closers.push(() => server.close());
    const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
    for (const request of DEV_REQUESTS) expect((await call(url, request)).status).toBe(200);
  });

  it("a cross-origin GET of the builder (any GET) changes nothing on disk", async () => {
    const server = makeServer();
    closers.push(() => server.close());
    const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
    for (const path of ["/dev/apps/pipeline/builder?tmp=true", "/dev/apps/brand_new/builder?tmp=true"]) {
      const res = await fetch(`${url}${path}`, { headers: { Origin: "http://attacker.example" } });
      expect(res.status).toBe(200);
    }
    expect(existsSync(join(agents.dir, "pipeline", "tmp"))).toBe(false);
    expect(existsSync(join(agents.dir, "brand_new"))).toBe(false);
    // The state-changing requests of that origin are refused by the origin check.
    const cancel = await fetch(`${url}/dev/apps/pipeline/builder/cancel`, {
      method: "POST",
      headers: { Origin: "http://attacker.example" },
    });
    expect(cancel.status).toBe(403);
  });
});

describe("with authentication configured", () => {
  it("only an admin principal passes, even on loopback", async () => {
    const app = express();
    app.use((req, res, next) => {
      const scopes = req.headers["x-test-scopes"];
      if (typeof scopes === "string") setPrincipal(res, { userId: "u", scopes: scopes.split(",") });
      next();
    });
    app.use(devToolsGate({ boundHost: () => "127.0.0.1", authConfigured: () => true }));
    app.get("/dev/x", (_req, res) => res.json(true));
    const http = createServer(app);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => http.close(() => resolve())));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    expect((await fetch(`${url}/dev/x`)).status).toBe(403);
    expect((await fetch(`${url}/dev/x`, { headers: { "x-test-scopes": "runs" } })).status).toBe(403);
    expect((await fetch(`${url}/dev/x`, { headers: { "x-test-scopes": `runs,${ADMIN_SCOPE}` } })).status).toBe(200);
  });
});

describe("api mode", () => {
  it("serves no dev route at all, not even routers handed to it", async () => {
    const server = makeServer({ mode: "api" });
    closers.push(() => server.close());
    expect(server.mountDevTools(createDebugRouter({ traces }))).toBe(false);
    const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
    for (const request of DEV_REQUESTS) {
      const res = await call(url, request, { "x-test-scopes": ADMIN_SCOPE });
      expect([request, res.status]).toEqual([request, 404]);
    }
  });

  it("mountDevTools mounts behind the gate in web mode", async () => {
    const server = createAgentServer({
      loader,
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      host: "0.0.0.0",
    });
    expect(server.mountDevTools(createDebugRouter({ traces }))).toBe(true);
    expect(server.mountDevTools(createGraphRouter(server.context))).toBe(true);
    const url = await serveWithPrincipal(server);
    expect((await fetch(`${url}/debug/trace/session/s1`)).status).toBe(403);
    expect((await fetch(`${url}/debug/trace/session/s1`, { headers: { "x-test-scopes": ADMIN_SCOPE } })).status).toBe(
      200,
    );
    expect((await fetch(`${url}/dev/apps/pipeline/build_graph`)).status).toBe(403);
  });
});
