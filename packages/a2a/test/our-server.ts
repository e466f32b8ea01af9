import { afterEach } from "@jest/globals";
import type { SendMessageRequest } from "@a2a-js/sdk";
import type { Client } from "@a2a-js/sdk/client";
import express from "express";
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  LongRunningFunctionTool,
  type RunConfig,
  type Session,
} from "@agentkit/core";
import { ScriptedModel, type ScriptStep } from "@agentkit/core/testing";
import { z } from "zod";
import { createA2aRouter, type CreateA2aRouterOptions, type OutputMode } from "../src/index.js";
import { listen, sdkClient, type Listening, type TRANSPORTS, userText } from "./helpers.js";

export interface OurServer extends Listening {
  /** The base URL of the A2A router (`<server>/a2a/weather_app`). */
  a2aUrl: string;
  runner: InMemoryRunner;
  model: ScriptedModel;
}

export const weatherTool = new FunctionTool({
  name: "get_weather",
  description: "Returns the weather of a city.",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, weather: "sunny" }),
});

/**
 * Our router serving an LlmAgent (scripted model, a weather tool, a long-running approval tool) under /a2a/weather_app.
 */
export async function startOurServer(
  options: { steps: ScriptStep[]; outputMode?: OutputMode; runConfig?: RunConfig; delayMs?: number } & Partial<
    Omit<CreateA2aRouterOptions, "runner">
  >,
): Promise<OurServer> {
  const { steps, delayMs, ...routerOptions } = options;
  const model = new ScriptedModel({ steps, delayMs });
  const approval = new LongRunningFunctionTool({
    name: "ask_approval",
    description: "Asks a human to approve.",
    parameters: z.object({ amount: z.number() }),
    // Returning nothing leaves the call pending: the client answers it later.
    execute: async () => undefined,
  });
  const agent = new LlmAgent({
    name: "weather_agent",
    description: "Answers weather questions.",
    model,
    instruction: "Be brief.",
    tools: [weatherTool, approval],
  });
  const runner = new InMemoryRunner({ agent, appName: "weather_app" });
  const app = express();
  app.use("/a2a/weather_app", createA2aRouter({ ...routerOptions, runner }));
  const listening = await listen(app);
  return {
    ...listening,
    a2aUrl: `${listening.url}/a2a/weather_app`,
    runner,
    model,
    close: async () => {
      await listening.close();
      await runner.close();
    },
  };
}

export const weatherSteps = (): ScriptStep[] => [
  ScriptedModel.functionCall("get_weather", { city: "Paris" }, "call-1"),
  ScriptedModel.text("It is sunny in Paris."),
];

/** A `sendMessage` request of a user text (in a context or task when given). */
export const send = (text: string, ids: { contextId?: string; taskId?: string } = {}): SendMessageRequest => ({
  tenant: "",
  message: userText(text, ids),
  configuration: undefined,
  metadata: undefined,
});

/** The session of an A2A context of our server's unauthenticated user (`A2A_USER_<contextId>`). */
export function contextSession(server: OurServer, contextId: string): Promise<Session | undefined> {
  return server.runner.sessionService.getSession({
    appName: "weather_app",
    userId: `A2A_USER_${contextId}`,
    sessionId: contextId,
  });
}

/**
 * Per test of a `describe`: `start` runs our server and an SDK client of `transport` for it
 * (`client`), both closed after the test.
 */
export function useOurServer(transport: (typeof TRANSPORTS)[number]): {
  start(options: Parameters<typeof startOurServer>[0]): Promise<OurServer>;
  readonly client: Client;
} {
  let server: OurServer | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
    client = undefined;
  });
  return {
    async start(options) {
      server = await startOurServer(options);
      client = await sdkClient(server.a2aUrl, transport);
      return server;
    },
    get client() {
      if (!client) throw new Error("start() the server first");
      return client;
    },
  };
}
