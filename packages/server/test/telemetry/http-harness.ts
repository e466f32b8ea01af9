import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import {
  type BaseAgent,
  type BasePlugin,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  Runner,
} from "@agentkit/core";
import type { AgentLoader, LoadedApp } from "../../src/agent-loader.js";
import { SessionRunQueue } from "../../src/runs/session-run-queue.js";
import { AppNotFoundError } from "../../src/errors/server-errors.js";
import { errorBody, statusForError } from "../../src/errors/status-for-error.js";
import type { ServerContext } from "../../src/server-context.js";

/** A bare express app: JSON bodies, the routers under test, JSON errors (as the real app does). */
export async function serve(...routers: Router[]): Promise<{ url: string; close: () => Promise<void> }> {
  const app = express();
  app.use(express.json());
  for (const router of routers) app.use(router);
  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: "Not found", detail: "Not found", code: "NOT_FOUND" });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = (error as { type?: string }).type === "entity.parse.failed" ? 400 : statusForError(error);
    res.status(status).json(errorBody(error));
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}

/** A ServerContext over fixed agents, in-memory services and one runner per app. */
export function staticContext(
  apps: Record<string, BaseAgent>,
  plugins: BasePlugin[] = [],
): ServerContext & { close(): Promise<void> } {
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const memoryService = new InMemoryMemoryService();
  const runners = new Map<string, Runner>();
  const queue = new SessionRunQueue();
  const loader: AgentLoader = {
    listApps: async () => Object.keys(apps).sort(),
    loadApp: async (name): Promise<LoadedApp> => {
      const rootAgent = apps[name];
      if (!rootAgent) throw new AppNotFoundError(name);
      return { name, rootAgent };
    },
    close: async () => {},
  };
  return {
    loader,
    sessionService,
    artifactService,
    memoryService,
    // Turns only: this harness serves no run routes (no shutdown to drain, no rate limits).
    admitRun: (key, run) => queue.acquireSession(key, run.signal),
    async runnerFor(appName: string): Promise<Runner> {
      const existing = runners.get(appName);
      if (existing) return existing;
      const { rootAgent } = await loader.loadApp(appName);
      const runner = new Runner({ appName, agent: rootAgent, sessionService, artifactService, memoryService, plugins });
      runners.set(appName, runner);
      return runner;
    },
    async close(): Promise<void> {
      await Promise.all([...runners.values()].map((r) => r.close()));
    },
  };
}

export async function getJson(url: string): Promise<{ status: number; body: unknown; contentType: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json(), contentType: res.headers.get("content-type") ?? "" };
}

export async function sendJson(
  method: string,
  url: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}
