import type { Request, Response } from "express";
import { Router } from "../http/express-module.js";
import type { BaseAgent } from "@agentkit/core";
import { HttpRequestError } from "../errors/server-errors.js";
import type { ServerContext } from "../server-context.js";
import { buildAgentDot } from "./agent-dot.js";
import { workflowKindOf } from "./agent-kind.js";
import { describeApp } from "./app-structure.js";
import { highlightPairsForEvent } from "./event-highlights.js";

type Handler = (req: Request, res: Response) => Promise<void>;

/**
 * The graph routes of http-api.md 4.9: an event's graph (legacy and `/dev` paths), the app
 * structure, the graph images per workflow level and the plain app graph, plus ADK Python
 * 1.x's `/dev/build_graph/{app}` and `/dev/{app}/graph`.
 */
export function createGraphRouter(ctx: ServerContext): Router {
  const router = Router();

  const eventGraph: Handler = async (req, res) => {
    const appName = param(req, "app");
    const { rootAgent } = await ctx.loader.loadApp(appName);
    const session = await ctx.sessionService.getSession({
      appName,
      userId: param(req, "userId"),
      sessionId: param(req, "sessionId"),
    });
    if (!session) throw new HttpRequestError(404, "SESSION_NOT_FOUND", `Session not found: ${param(req, "sessionId")}`);
    const eventId = param(req, "eventId");
    const event = session.events.find((e) => e.id === eventId);
    if (!event) throw new HttpRequestError(404, "EVENT_NOT_FOUND", `Event not found: ${eventId}`);
    const dotSrc = await buildAgentDot(rootAgent, {
      darkMode: darkMode(req, true),
      highlightPairs: highlightPairsForEvent(event),
      graphName: appName,
    });
    res.json({ dotSrc });
  };
  router.get("/apps/:app/users/:userId/sessions/:sessionId/events/:eventId/graph", eventGraph);
  router.get("/dev/apps/:app/users/:userId/sessions/:sessionId/events/:eventId/graph", eventGraph);

  const buildGraph: Handler = async (req, res) => {
    res.json(await describeApp(await ctx.loader.loadApp(param(req, "app"))));
  };
  router.get("/dev/apps/:app/build_graph", buildGraph);
  // ADK Python 1.x path.
  router.get("/dev/build_graph/:app", buildGraph);

  router.get("/dev/apps/:app/build_graph_image", (async (req, res) => {
    const appName = param(req, "app");
    const { rootAgent } = await ctx.loader.loadApp(appName);
    const nodePath = typeof req.query.node === "string" ? req.query.node : "";
    const start = findNode(rootAgent, appName, nodePath);
    if (!start) throw new HttpRequestError(404, "NODE_NOT_FOUND", `Node not found in app ${appName}: ${nodePath}`);
    const dark = darkMode(req, false);
    const out: Record<string, { dotSrc: string } | string> = {};
    for (const [path, agent] of workflowLevels(start)) {
      out[path] = {
        dotSrc: await buildAgentDot(agent, { darkMode: dark, graphName: agent === rootAgent ? appName : agent.name }),
      };
    }
    out.dotSrc = (out[""] as { dotSrc: string }).dotSrc;
    res.json(out);
  }) satisfies Handler);

  const appGraph: Handler = async (req, res) => {
    const appName = param(req, "app");
    const { rootAgent } = await ctx.loader.loadApp(appName);
    res.json({ dotSrc: await buildAgentDot(rootAgent, { darkMode: darkMode(req, false), graphName: appName }) });
  };
  router.get("/dev/apps/:app/graph", appGraph);
  // ADK Python 1.x path.
  router.get("/dev/:app/graph", appGraph);

  return router;
}

function param(req: Request, name: string): string {
  return String(req.params[name]);
}

function darkMode(req: Request, fallback: boolean): boolean {
  const value = req.query.dark_mode ?? req.query.darkMode;
  if (typeof value !== "string" || value === "") return fallback;
  return value === "true" || value === "1";
}

/**
 * The agent a slash-separated node path names. A first segment equal to the app name,
 * `root_agent` or the root agent's name is the root; `@…` suffixes (UI run markers) are ignored.
 */
export function findNode(root: BaseAgent, appName: string, path: string): BaseAgent | undefined {
  const segments = path
    .split("/")
    .map((s) => s.replace(/@.*$/, ""))
    .filter((s) => s !== "");
  let current: BaseAgent = root;
  const first = segments[0];
  if (first !== undefined && (first === appName || first === "root_agent" || first === root.name)) segments.shift();
  for (const segment of segments) {
    const next = current.subAgents.find((a) => a.name === segment);
    if (!next) return undefined;
    current = next;
  }
  return current;
}

/** `""` for the start node, then every workflow agent below it keyed by its path from there. */
function workflowLevels(start: BaseAgent): [string, BaseAgent][] {
  const out: [string, BaseAgent][] = [["", start]];
  const walk = (agent: BaseAgent, prefix: string): void => {
    for (const sub of agent.subAgents) {
      const path = prefix === "" ? sub.name : `${prefix}/${sub.name}`;
      if (workflowKindOf(sub)) out.push([path, sub]);
      walk(sub, path);
    }
  };
  walk(start, "");
  return out;
}
