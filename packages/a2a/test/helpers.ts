import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express, { type Express } from "express";
import {
  A2A_PROTOCOL_VERSION,
  AGENT_CARD_PATH,
  Role,
  TaskState,
  type AgentCard,
  type Message,
  type Part,
  type Task,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { UserBuilder, agentCardHandler, jsonRpcHandler, restHandler } from "@a2a-js/sdk/server/express";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { randomUUID } from "node:crypto";

export interface Listening {
  url: string;
  close: () => Promise<void>;
}

/** Listens on 127.0.0.1, port 0; `close` ends open connections too. */
export async function listen(app: Express): Promise<Listening> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function textPart(value: string, metadata?: Record<string, unknown>): Part {
  return { content: { $case: "text", value }, metadata, filename: "", mediaType: "text/plain" };
}

export function dataPart(value: unknown, metadata?: Record<string, unknown>): Part {
  return { content: { $case: "data", value }, metadata, filename: "", mediaType: "application/json" };
}

export function message(role: Role, parts: Part[], ids: { contextId?: string; taskId?: string } = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? "",
    taskId: ids.taskId ?? "",
    role,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function userText(text: string, ids: { contextId?: string; taskId?: string } = {}): Message {
  return message(Role.ROLE_USER, [textPart(text)], ids);
}

function textOf(msg: Message): string {
  return msg.parts.map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

/** What the plain-SDK test server saw. */
export interface SdkServerLog {
  requests: { text: string; contextId: string; taskId: string; hadTask: boolean; parts: Part[] }[];
  canceled: string[];
}

/**
 * An A2A server written with @a2a-js/sdk alone. Its executor answers by the first word of the
 * user's text: `echo` (a plain message), `stream` (artifact chunks), `data` (data parts),
 * `ask` (input-required, then completed on the follow-up), `fail` (failed), `slow` (works
 * until canceled).
 */
export async function startSdkServer(
  options: { streaming?: boolean } = {},
): Promise<Listening & { log: SdkServerLog; card: AgentCard }> {
  const log: SdkServerLog = { requests: [], canceled: [] };
  const waiting = new Map<string, () => void>();
  const status = (ctx: RequestContext, state: TaskState, text?: string, metadata?: Record<string, unknown>) =>
    AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: {
        state,
        message: text === undefined ? undefined : { ...message(Role.ROLE_AGENT, [textPart(text)], ctx), metadata },
        timestamp: new Date().toISOString(),
      },
      metadata: undefined,
    });
  const artifact = (ctx: RequestContext, artifactId: string, parts: Part[], append: boolean, lastChunk: boolean) =>
    AgentEvent.artifactUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: { artifactId, name: "answer", description: "", parts, metadata: undefined, extensions: [] },
      append,
      lastChunk,
      metadata: undefined,
    });
  const task = (ctx: RequestContext): Task =>
    ctx.task ?? {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: undefined,
    };

  const executor: AgentExecutor = {
    async execute(ctx: RequestContext, bus: ExecutionEventBus) {
      const text = textOf(ctx.userMessage);
      log.requests.push({
        text,
        contextId: ctx.contextId,
        taskId: ctx.taskId,
        hadTask: !!ctx.task,
        parts: ctx.userMessage.parts,
      });
      const command = ctx.task ? "answer" : text.trim().split(/\s+/)[0]!;
      switch (command) {
        case "echo":
          bus.publish(
            AgentEvent.message(
              message(Role.ROLE_AGENT, [textPart(`echo: ${text.slice(5)}`)], { contextId: ctx.contextId }),
            ),
          );
          break;
        case "stream":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(status(ctx, TaskState.TASK_STATE_WORKING));
          bus.publish(artifact(ctx, "a1", [textPart("Hel")], false, false));
          bus.publish(artifact(ctx, "a1", [textPart("lo ")], true, false));
          bus.publish(artifact(ctx, "a1", [textPart("world")], true, true));
          bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
          break;
        case "data":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(
            artifact(
              ctx,
              "d1",
              [
                dataPart({ temperature: 21, unit: "C" }),
                dataPart({ id: "call-1", name: "lookup", args: { q: "x" } }, { adk_type: "function_call" }),
              ],
              false,
              true,
            ),
          );
          bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
          break;
        case "ask":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(status(ctx, TaskState.TASK_STATE_INPUT_REQUIRED, "Which city?"));
          break;
        case "answer":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(artifact(ctx, "w1", [textPart(`Sunny in ${text}`)], false, true));
          bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
          break;
        case "fail":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(status(ctx, TaskState.TASK_STATE_FAILED, "boom", { adk_error_code: "REMOTE_BOOM" }));
          break;
        case "slow":
          bus.publish(AgentEvent.task(task(ctx)));
          bus.publish(status(ctx, TaskState.TASK_STATE_WORKING, "working on it"));
          await new Promise<void>((resolve) => {
            waiting.set(ctx.taskId, resolve);
            setTimeout(resolve, 10_000).unref();
          });
          break;
        default:
          bus.publish(
            AgentEvent.message(
              message(Role.ROLE_AGENT, [textPart(`unknown command ${command}`)], { contextId: ctx.contextId }),
            ),
          );
      }
      bus.finished();
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      log.canceled.push(taskId);
      waiting.get(taskId)?.();
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
          metadata: undefined,
        }),
      );
    },
  };

  const app = express();
  const listening = await listen(app);
  const card: AgentCard = {
    name: "sdk_agent",
    description: "A plain @a2a-js/sdk agent",
    supportedInterfaces: [
      {
        url: `${listening.url}/a2a/jsonrpc`,
        protocolBinding: "JSONRPC",
        tenant: "",
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
      {
        url: `${listening.url}/a2a/rest`,
        protocolBinding: "HTTP+JSON",
        tenant: "",
        protocolVersion: A2A_PROTOCOL_VERSION,
      },
    ],
    provider: undefined,
    version: "1.0.0",
    capabilities: { streaming: options.streaming ?? true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  return {
    ...listening,
    log,
    card,
    close: async () => {
      for (const resolve of waiting.values()) resolve();
      await listening.close();
    },
  };
}

/** An SDK client for a card URL, preferring one transport. */
export async function sdkClient(baseUrl: string, transport: "JSONRPC" | "HTTP+JSON"): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [transport] }),
  );
  // The SDK resolves the card path relative to the base URL: without a trailing slash the
  // last path segment (the app name) would be dropped.
  return factory.createFromUrl(baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`);
}

export const TRANSPORTS = ["JSONRPC", "HTTP+JSON"] as const;
