import { AGENT_CARD_PATH, type AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler, type TaskStore } from "@a2a-js/sdk/server";
import type { UserBuilder } from "@a2a-js/sdk/server/express";
import type { Runner } from "@agentkit/core";
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { A2aAgentExecutor, type A2aAgentExecutorOptions } from "./a2a-agent-executor.js";
import { BoundedTaskStore } from "./bounded-task-store.js";
import {
  A2A_JSONRPC_PATH,
  A2A_REST_PATH,
  buildAgentCard,
  supportedInterfacesAt,
  type BuildAgentCardOptions,
} from "./agent-card-builder.js";

export interface CreateA2aRouterOptions extends Omit<A2aAgentExecutorOptions, "runner"> {
  runner: Runner;
  /** A fixed card to serve; by default one is built from the runner's agent. */
  agentCard?: AgentCard;
  /**
   * The public path the router is reachable at, when a proxy changes it (default: the path
   * Express mounted the router at). The built card's interface URLs use the request's host.
   */
  basePath?: string;
  /** Settings for the built card (name, version, provider, ...). */
  card?: Omit<BuildAgentCardOptions, "agent" | "url">;
  /** Where tasks are kept (default: a `BoundedTaskStore`, in memory, at most 10,000 tasks, each for a day since its last update). */
  taskStore?: TaskStore;
  /** Who the caller is (default: no authentication). */
  userBuilder?: UserBuilder;
}

/** The router's public base URL as the request reached it (the card route's own path removed). */
function requestBaseUrl(req: Request, basePath: string | undefined): string {
  const cardSuffix = `/${AGENT_CARD_PATH}`;
  const mountPath = req.baseUrl.endsWith(cardSuffix) ? req.baseUrl.slice(0, -cardSuffix.length) : req.baseUrl;
  return `${req.protocol}://${req.get("host") ?? "localhost"}${basePath ?? mountPath}`;
}

interface Mounted {
  routes: RequestHandler;
}

/**
 * An Express router serving an agentkit runner over A2A v1.0: the agent card at
 * `/.well-known/agent-card.json`, JSON-RPC at `/jsonrpc` and HTTP+JSON at `/rest` (the
 * SDK's own Express middlewares). Mount it anywhere, e.g. `app.use("/a2a/my_app", router)`.
 * Express (an optional peer) is loaded on the first request, so importing this package
 * never needs it.
 */
export function createA2aRouter(options: CreateA2aRouterOptions): RequestHandler {
  const { runner, agentCard, basePath, card, taskStore, userBuilder, ...executorOptions } = options;
  const executor = new A2aAgentExecutor({ runner, ...executorOptions });
  let mounting: Promise<Mounted> | undefined;

  const mount = async (): Promise<Mounted> => {
    const [{ Router }, sdkExpress] = await Promise.all([import("express"), import("@a2a-js/sdk/server/express")]);
    // The handler's card is used for capability and protocol-version checks only; the card
    // served to clients gets interface URLs of the request's own base URL.
    const baseCard = agentCard ?? (await buildAgentCard({ ...card, agent: runner.agent, url: "http://localhost" }));
    const handler = new DefaultRequestHandler(baseCard, taskStore ?? new BoundedTaskStore(), executor);
    const users = userBuilder ?? sdkExpress.UserBuilder.noAuthentication;
    const routes = Router();
    routes.use(`/${AGENT_CARD_PATH}`, (req, res, next) => {
      const served = agentCard ?? {
        ...baseCard,
        supportedInterfaces: supportedInterfacesAt(requestBaseUrl(req, basePath)),
      };
      return sdkExpress.agentCardHandler({ agentCardProvider: async () => served })(req, res, next);
    });
    routes.use(A2A_JSONRPC_PATH, sdkExpress.jsonRpcHandler({ requestHandler: handler, userBuilder: users }));
    routes.use(A2A_REST_PATH, sdkExpress.restHandler({ requestHandler: handler, userBuilder: users }));
    return { routes };
  };

  return (req: Request, res: Response, next: NextFunction) => {
    mounting ??= mount().catch((error: unknown) => {
      mounting = undefined; // try again on the next request
      throw error;
    });
    mounting.then(({ routes }) => routes(req, res, next), next);
  };
}
