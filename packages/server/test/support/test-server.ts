import { createServer as createHttpServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import {
  FunctionTool,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  LongRunningFunctionTool,
  type App,
  type BaseAgent,
} from "@agentkit/core";
import { ScriptedLiveModel, ScriptedModel } from "@agentkit/core/testing";
import {
  createAgentServer,
  createStaticAgentLoader,
  type AgentServer,
  type AgentServerOptions,
  type LogFields,
  type ServerLogger,
} from "../../src/index.js";

/** A logger that keeps what the server reports, so tests can assert nothing unexpected happened. */
export function recordingLogger(): ServerLogger & { errors: unknown[] } {
  const errors: unknown[] = [];
  return {
    errors,
    error: (message, error) => errors.push(error ?? message),
    warn: () => {},
    info: () => {},
  };
}

/** A logger that keeps the warnings (message and fields) besides the errors. */
export function warningLogger(): ServerLogger & {
  warnings: { message: string; fields?: LogFields }[];
  errors: unknown[];
} {
  const warnings: { message: string; fields?: LogFields }[] = [];
  const errors: unknown[] = [];
  return {
    warnings,
    errors,
    error: (message, error) => errors.push(error ?? message),
    warn: (message, _error, fields) => warnings.push({ message, ...(fields ? { fields } : {}) }),
    info: () => {},
  };
}

/** A model whose one call waits until `finish()`: a run that holds its session's turn meanwhile. */
export function heldModel(): { model: ScriptedModel; started: Promise<void>; finish: () => void } {
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const model = new ScriptedModel();
  model.push(async () => {
    markStarted();
    await finished;
    return ScriptedModel.text("done");
  });
  return { model, started, finish };
}

/**
 * Serves `app` on a node:http server of the test's own on 127.0.0.1 (an embedder's server: it
 * keeps accepting requests while the agent server drains); `close` stops it.
 */
export async function listenOn(app: RequestListener): Promise<{ url: string; close: () => Promise<void> }> {
  const http = createHttpServer(app);
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => http.close(() => resolve())),
  };
}

/** The checklist's app `A`: one scripted LLM agent with every kind of tool the checklist needs. */
export function checklistAgent(model: ScriptedModel): LlmAgent {
  return new LlmAgent({
    name: "helper",
    model,
    description: "Answers deterministically.",
    instruction: "Be brief.",
    tools: [
      new FunctionTool({
        name: "get_weather",
        description: "Weather of a city.",
        parameters: z.object({ city: z.string() }),
        execute: ({ city }) => ({ city, forecast: "sunny" }),
      }),
      new LongRunningFunctionTool({
        name: "ask_manager",
        description: "Asks a human; answers later.",
        parameters: z.object({ question: z.string() }),
        execute: () => undefined,
      }),
      new FunctionTool({
        name: "transfer_money",
        description: "Moves money; needs the user's confirmation.",
        parameters: z.object({ amount: z.number() }),
        requireConfirmation: true,
        execute: ({ amount }) => ({ done: true, amount }),
      }),
      new FunctionTool({
        name: "save_note",
        description: "Saves note.txt.",
        parameters: z.object({ text: z.string() }),
        execute: async ({ text }, toolContext) => {
          const version = await toolContext.saveArtifact("note.txt", {
            inlineData: { mimeType: "text/plain", data: Buffer.from(text).toString("base64") },
          });
          return { version };
        },
      }),
    ],
  });
}

export interface TestServer {
  server: AgentServer;
  url: string;
  port: number;
  model: ScriptedModel;
  liveModel: ScriptedLiveModel;
  sessionService: InMemorySessionService;
  artifactService: InMemoryArtifactService;
  memoryService: InMemoryMemoryService;
  logger: ReturnType<typeof recordingLogger>;
  close(): Promise<void>;
}

/**
 * Starts the real server on 127.0.0.1:0 with app `A` (scripted text model), app `live_app`
 * (scripted live model) and any extra apps.
 */
export async function startTestServer(
  options: Partial<AgentServerOptions> & {
    apps?: Record<string, BaseAgent | App>;
    modelOptions?: ConstructorParameters<typeof ScriptedModel>[0];
  } = {},
): Promise<TestServer> {
  const model = new ScriptedModel(options.modelOptions);
  const liveModel = new ScriptedLiveModel();
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const memoryService = new InMemoryMemoryService();
  const logger = recordingLogger();
  const { apps, modelOptions: _m, ...rest } = options;
  const server = createAgentServer({
    loader: createStaticAgentLoader({
      apps: {
        A: checklistAgent(model),
        live_app: new LlmAgent({ name: "voice", model: liveModel, instruction: "Talk." }),
        ...apps,
      },
    }),
    sessionService,
    artifactService,
    memoryService,
    logger,
    ...rest,
  });
  const { url, port } = await server.listen({ host: "127.0.0.1", port: 0 });
  return {
    server,
    url,
    port,
    model,
    liveModel,
    sessionService,
    artifactService,
    memoryService,
    logger,
    close: () => server.close(),
  };
}

/** fetch + JSON body helpers. */
export async function post(url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export async function send(
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method,
    headers: body === undefined ? headers : { "Content-Type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read field by field in assertions
export type Json = Record<string, any>;

export async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

/** Splits an SSE body into its frames' JSON, asserting the exact `data: <json>\n\n` framing. */
export function parseSseStrict(body: string): Json[] {
  const frames: Json[] = [];
  let rest = body;
  while (rest.length > 0) {
    const end = rest.indexOf("\n\n");
    if (end < 0) throw new Error(`Unterminated SSE frame: ${JSON.stringify(rest.slice(0, 200))}`);
    const frame = rest.slice(0, end);
    if (!frame.startsWith("data: ") || frame.includes("\n"))
      throw new Error(`Not a single-line data frame: ${JSON.stringify(frame.slice(0, 200))}`);
    frames.push(JSON.parse(frame.slice("data: ".length)) as Json);
    rest = rest.slice(end + 2);
  }
  return frames;
}

export const userMessage = (text: string) => ({ role: "user", parts: [{ text }] });
