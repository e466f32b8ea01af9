import { randomUUID } from "node:crypto";
import { Role, type AgentCard, type SendMessageRequest } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import {
  AgentKitError,
  BaseAgent,
  ConfigurationError,
  RunAbortedError,
  type Event,
  type InvocationContext,
} from "@agentkit/core";
import { AbortScope, untilAborted } from "@agentkit/core/internal";
import { z } from "zod";
import { A2AClientError, errorMessageOf } from "../errors.js";
import { normalizeAgentCard, resolveAgentCard } from "./agent-card-resolver.js";
import { A2aResponseConverter } from "./response-converter.js";
import { buildOutgoingTurn } from "./session-message.js";

/** A2A transports the client can use. */
export type A2aTransportName = "JSONRPC" | "HTTP+JSON";

export interface RemoteA2aAgentOptions {
  name: string;
  /** The card: its URL (or the agent's base URL), a local JSON file path, or the card object. */
  agentCard: string | AgentCard;
  /** Defaults to the card's description. */
  description?: string;
  /** The `fetch` used for the card and every A2A call (auth headers, proxies, tests). */
  fetch?: typeof fetch;
  /** Per-call deadline (card resolution and each message exchange), in milliseconds. */
  timeoutMs?: number;
  /** Stream the remote's updates (partial events) when the card allows it. Default: true. */
  streaming?: boolean;
  /** Transport preference; otherwise the card's order of `supportedInterfaces` decides. */
  preferredTransports?: A2aTransportName[];
}

const optionsSchema = z.object({
  name: z.string(),
  agentCard: z.union([
    z.string().min(1),
    z.looseObject({ name: z.string(), supportedInterfaces: z.array(z.unknown()) }),
  ]),
  description: z.string().optional(),
  fetch: z.custom<typeof fetch>((v) => typeof v === "function", "fetch must be a function").optional(),
  timeoutMs: z.number().int().positive().optional(),
  streaming: z.boolean().optional(),
  preferredTransports: z
    .array(z.enum(["JSONRPC", "HTTP+JSON"]))
    .min(1)
    .optional(),
});

/**
 * An agent that runs on another server and is reached over A2A (protocol v1.0). Each turn it
 * sends the conversation since its last reply to the remote agent and yields the remote's
 * answer as events (streamed when the card allows). The A2A context id (and the id of a task
 * waiting for input) is kept in the events' `customMetadata`, so the next turn continues the
 * same remote conversation.
 */
export class RemoteA2aAgent extends BaseAgent {
  private readonly options: RemoteA2aAgentOptions;
  private readonly fetchImpl: typeof fetch;
  private card?: AgentCard;
  /** The client being made (card fetch included), shared by the runs that need it meanwhile. */
  private pendingClient?: SharedClient;
  private client?: Client;

  constructor(options: RemoteA2aAgentOptions) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      throw new ConfigurationError(
        `Invalid RemoteA2aAgent ` +
          `options: ${parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ")}`,
      );
    }
    const card = typeof options.agentCard === "string" ? undefined : normalizeAgentCard(options.agentCard);
    super({ name: options.name, description: options.description ?? card?.description ?? "" });
    this.options = options;
    this.card = card;
    this.fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** The resolved agent card (fetched on first use). */
  async getAgentCard(signal?: AbortSignal): Promise<AgentCard> {
    if (!this.card) {
      const source = this.options.agentCard as string;
      const call = this.callScope(signal);
      try {
        this.card = await resolveAgentCard(source, { fetch: this.fetchImpl, signal: call.signal });
      } finally {
        call.release();
      }
    }
    return this.card;
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, void> {
    const turn = buildOutgoingTurn(ctx, this.name);
    if (turn.parts.length === 0) return; // nothing new to tell the remote agent
    const client = await this.getClient(ctx.signal);
    const card = await this.getAgentCard();
    const message = {
      messageId: randomUUID(),
      contextId: turn.contextId ?? "",
      taskId: turn.taskId ?? "",
      role: Role.ROLE_USER,
      parts: turn.parts,
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const request: SendMessageRequest = { tenant: "", message, configuration: undefined, metadata: undefined };
    const converter = new A2aResponseConverter({
      author: this.name,
      invocationId: ctx.invocationId,
      branch: ctx.branch,
      sentMessageId: message.messageId,
      contextId: turn.contextId,
      taskId: turn.taskId,
      knownArtifactCount: turn.knownArtifactCount,
    });
    // The deadline covers the whole exchange: a stream must end within timeoutMs too.
    const call = this.callScope(ctx.signal);
    const signal = call.signal;
    const streaming = (this.options.streaming ?? true) && card.capabilities?.streaming === true;
    try {
      if (streaming) {
        for await (const response of client.sendMessageStream(request, { signal })) {
          for (const event of converter.fromStreamResponse(response)) yield event;
        }
      } else {
        const result = await client.sendMessage(request, { signal });
        for (const event of converter.fromSendResult(result)) yield event;
      }
    } catch (error) {
      throw this.mapFailure(error, ctx.signal, call);
    } finally {
      // Over (done, failed, or the consumer stopped): drop the timer and the listener on the run's signal.
      call.release();
      if (ctx.signal?.aborted && converter.taskId && !converter.isDone) {
        // Best effort: tell the remote to stop the task the aborted run started.
        client
          .cancelTask({ tenant: "", id: converter.taskId, metadata: undefined }, { signal: AbortSignal.timeout(5000) })
          .catch(() => {});
      }
    }
  }

  /**
   * The client, made on first use. The runs that need it while it is being made share one
   * attempt (one card fetch), which answers to no run's signal, only to `timeoutMs`: each run
   * waits for it under its own signal, so a run that aborts (`RunAbortedError`) leaves the others
   * waiting. Once every waiting run has aborted, the attempt is abandoned (its fetch aborted).
   * A failed attempt is not kept: the next turn tries again.
   */
  private async getClient(signal?: AbortSignal): Promise<Client> {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    if (this.client) return this.client;
    let shared = this.pendingClient;
    if (!shared) {
      const controller = new AbortController();
      const attempt: SharedClient = { controller, waiters: 0, settled: false, promise: undefined as never };
      attempt.promise = this.createClient(controller.signal).then(
        (client) => {
          attempt.settled = true;
          if (this.pendingClient === attempt) {
            this.pendingClient = undefined;
            this.client = client;
          }
          return client;
        },
        (error: unknown) => {
          attempt.settled = true;
          if (this.pendingClient === attempt) this.pendingClient = undefined; // a later turn tries again
          throw error;
        },
      );
      this.pendingClient = shared = attempt;
    }
    const attempt = shared;
    attempt.waiters += 1;
    try {
      return signal ? await untilAborted(attempt.promise, signal) : await attempt.promise;
    } finally {
      attempt.waiters -= 1;
      if (attempt.waiters === 0 && !attempt.settled) {
        // Every run that waited for it has aborted: nobody needs this attempt any more.
        if (this.pendingClient === attempt) this.pendingClient = undefined;
        attempt.controller.abort(new RunAbortedError());
      }
    }
  }

  private async createClient(signal?: AbortSignal): Promise<Client> {
    const card = await this.getAgentCard(signal);
    const fetchImpl = this.fetchImpl;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        ...(this.options.preferredTransports ? { preferredTransports: this.options.preferredTransports } : {}),
      }),
    );
    try {
      return await factory.createFromAgentCard(card);
    } catch (error) {
      throw new A2AClientError(
        `Cannot create an A2A client for agent "${this.name}" from its card: ${errorMessageOf(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * One call's signal: the caller's, aborted too after `timeoutMs`. A scope rather than
   * `AbortSignal.any`, so `release` leaves nothing on the caller's (the run's) signal.
   */
  private callScope(signal: AbortSignal | undefined): AbortScope {
    const scope = AbortScope.under(signal);
    const { timeoutMs } = this.options;
    // The reason `AbortSignal.timeout` gives, so the errors read as before.
    if (timeoutMs)
      scope.abortAfter(timeoutMs, () => new DOMException("The operation was aborted due to timeout", "TimeoutError"));
    return scope;
  }

  private mapFailure(error: unknown, runSignal: AbortSignal | undefined, call: AbortScope): Error {
    if (runSignal?.aborted) return new RunAbortedError({ cause: error });
    if (error instanceof AgentKitError) return error;
    if (call.timedOut) {
      return new A2AClientError(`The A2A call to agent "${this.name}" timed out after ${this.options.timeoutMs} ms.`, {
        cause: error,
      });
    }
    return new A2AClientError(`The A2A call to agent "${this.name}" failed: ${errorMessageOf(error)}`, {
      cause: error,
    });
  }
}

/** One attempt at making the client, shared by the runs waiting for it. */
interface SharedClient {
  promise: Promise<Client>;
  /** Aborts the attempt's card fetch. */
  controller: AbortController;
  /** Runs waiting for the attempt. */
  waiters: number;
  settled: boolean;
}
