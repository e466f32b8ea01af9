import { Router } from "../http/express-module.js";
import { isLlmAgent, VERSION, type BaseAgent } from "@agentkit/core";
import type { LoadedApp } from "../agent-loader.js";
import { HttpRequestError } from "../errors/server-errors.js";
import type { RouteDeps } from "./route-deps.js";
import { checkSessionKeyParams } from "../http/session-key-params.js";

/** What `/apps/{app}/app-info` and `/list-apps?detailed=true` describe. */
export interface AppInfo {
  name: string;
  rootAgentName: string;
  description: string;
  language: "typescript" | "yaml";
  isComputerUse: boolean;
  agents: Record<string, { name: string; description: string }>;
}

/** /list-apps, /version, /health and /apps/{app}/app-info (http-api.md 4.1). */
export function appRoutes(deps: RouteDeps): Router {
  const router = checkSessionKeyParams(Router());
  const { loader } = deps.context;

  router.get("/list-apps", async (req, res) => {
    const names = await loader.listApps();
    if (req.query.detailed !== "true") {
      res.json(names);
      return;
    }
    // Broken apps are left out of the detailed list; their error shows when they are opened.
    const settled = await Promise.allSettled(names.map(async (name) => appInfo(await loader.loadApp(name))));
    res.json({ apps: settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : [])) });
  });

  router.get("/version", (_req, res) => {
    res.json({ version: VERSION, language: "typescript", language_version: process.version });
  });

  router.get("/health", (_req, res) => {
    res.json({ status: "ok" });
  });

  router.get("/apps/:app/app-info", async (req, res) => {
    const loaded = await loader.loadApp(req.params.app);
    if (!isLlmAgent(loaded.rootAgent)) {
      throw new HttpRequestError(
        400,
        "NOT_AN_LLM_AGENT",
        `The root agent of app "${loaded.name}" is not an LLM agent.`,
      );
    }
    res.json(appInfo(loaded));
  });

  return router;
}

function appInfo(loaded: LoadedApp): AppInfo {
  const agents: AppInfo["agents"] = {};
  const visit = (agent: BaseAgent) => {
    agents[agent.name] = { name: agent.name, description: agent.description ?? "" };
    for (const sub of agent.subAgents) visit(sub);
  };
  visit(loaded.rootAgent);
  return {
    name: loaded.name,
    rootAgentName: loaded.rootAgent.name,
    description: loaded.rootAgent.description ?? "",
    language: loaded.source && /\.ya?ml$/i.test(loaded.source) ? "yaml" : "typescript",
    isComputerUse: false,
    agents,
  };
}
