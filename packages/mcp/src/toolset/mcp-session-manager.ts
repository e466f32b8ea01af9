import { RunAbortedError, VERSION } from "@agentkit/core";
import { AbortScope, retry, untilAborted } from "@agentkit/core/internal";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  ElicitRequestSchema,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type ElicitRequest,
  type ElicitResult,
  type Tool as McpToolDefinition,
} from "@modelcontextprotocol/sdk/types.js";
import { McpSessionInitError } from "../errors/mcp-errors.js";
import { describeServer, type McpConnectionParameters } from "./connection-params.js";
import { ProgressListeners, ProgressTap } from "./progress-tap.js";
import { withRequestSignal } from "./request-signal.js";

export interface McpSessionManagerOptions {
  connection: McpConnectionParameters;
  /** Timeout of the whole connect: the transport's start (e.g. SSE's `endpoint` event), initialize, retries. */
  timeoutMs: number;
  elicitation?: McpElicitationOptions;
  /** OAuth for HTTP transports (the SDK's provider: tokens, refresh, discovery, registration). */
  authProvider?: OAuthClientProvider;
  /** Keep the tool list while the server announces its changes (see `listTools`). Default true. */
  cacheToolList?: boolean;
}

/** Answers the server's `elicitation/create` requests (form mode). */
export interface McpElicitationOptions {
  handler: (request: ElicitRequest["params"], options: { signal: AbortSignal }) => ElicitResult | Promise<ElicitResult>;
  /** Fill fields the answer omits with the schema's defaults (SEP-1034). Default true. */
  applyDefaults?: boolean;
}

/**
 * Owns the one MCP client session of a toolset: connects lazily (concurrent first callers
 * share one attempt), forgets the session when its transport closes, reconnects once when an
 * operation fails because the connection is gone, and closes (reaping a stdio child) on `close()`.
 */
export class McpSessionManager {
  readonly serverName: string;
  /** Progress of running tool calls, delivered in arrival order (see ProgressListeners). */
  readonly progress = new ProgressListeners();
  private readonly connection: McpConnectionParameters;
  private readonly timeoutMs: number;
  private readonly elicitation?: McpElicitationOptions;
  private readonly authProvider?: OAuthClientProvider;
  private readonly cacheToolList: boolean;
  /** The current session's tools, while the server promises to announce changes (see `listTools`). */
  private toolList?: { client: Client; tools: McpToolDefinition[] };
  /** Counts the server's tool-list change notifications: a list read across one is not kept. */
  private toolListChanges = 0;
  private client?: Client;
  private connecting?: Promise<Client>;
  private closing?: Promise<void>;
  private readonly retired = new Set<Promise<void>>();

  constructor(options: McpSessionManagerOptions) {
    this.connection = options.connection;
    this.timeoutMs = options.timeoutMs;
    this.elicitation = options.elicitation;
    this.authProvider = options.authProvider;
    this.cacheToolList = options.cacheToolList ?? true;
    this.serverName = describeServer(options.connection);
  }

  get isClosed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * The live client, connecting first when there is none. Concurrent callers share one attempt,
   * bounded by the timeout alone; each waits for it under its own `signal` (an abort rejects that
   * caller with `RunAbortedError` and leaves the attempt to the others).
   */
  async getClient(signal?: AbortSignal): Promise<Client> {
    this.assertOpen();
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    if (this.client) return this.client;
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return signal ? untilAborted(this.connecting, signal) : this.connecting;
  }

  /**
   * Runs `operation` on the session. When it fails because the connection dropped (server
   * restarted, child exited, HTTP session expired), the session is replaced and `operation`
   * runs once more on the new one.
   */
  async run<T>(operation: (client: Client) => Promise<T>, signal?: AbortSignal): Promise<T> {
    const client = await this.getClient(signal);
    try {
      return await operation(client);
    } catch (error) {
      if (signal?.aborted || this.isClosed || !isConnectionError(error)) throw error;
      this.retire(client);
      return operation(await this.getClient(signal));
    }
  }

  /**
   * The server's tools, every page. A server that declares `tools.listChanged` sends
   * `notifications/tools/list_changed` when its tools change, so its list is kept for the session
   * until such a notice (each model request would otherwise cost a round trip to the server, and
   * its tools converted again); a server that does not declare it is asked every time, and a new
   * session (after a reconnect) is always asked. Concurrent first calls each ask.
   */
  listTools(timeoutMs: number, signal?: AbortSignal): Promise<McpToolDefinition[]> {
    return this.run(async (client) => {
      const kept = this.toolList;
      if (kept?.client === client) return kept.tools;
      const changes = this.toolListChanges;
      const tools = await listAllTools(client, timeoutMs, signal);
      const announced = client.getServerCapabilities()?.tools?.listChanged === true;
      if (this.cacheToolList && announced && changes === this.toolListChanges && this.client === client)
        this.toolList = { client, tools };
      return tools;
    }, signal);
  }

  /** Closes the session and its transport (a stdio child is terminated). Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= this.closeNow();
    return this.closing;
  }

  private async closeNow(): Promise<void> {
    const pending = this.connecting;
    if (pending) await pending.catch(() => undefined);
    if (this.client) this.retire(this.client);
    await Promise.all([...this.retired]);
  }

  private assertOpen(): void {
    if (this.isClosed)
      throw new McpSessionInitError(
        this.serverName,
        `The MCP toolset for ${this.serverName} is closed; create a new McpToolset.`,
      );
  }

  /**
   * Opens a session. A network failure while opening it (a proxy or a busy server resetting
   * the socket, a server still starting) is retried a few times with a short backoff; an HTTP
   * error, a timeout, or a failure that persists ends in `McpSessionInitError`. Stdio is tried
   * once. The timeout bounds the whole of it: every attempt (the transport's start, for SSE the
   * wait for the server's `endpoint` event, and initialize) and the waits between them.
   */
  private async connect(): Promise<Client> {
    const attempts = this.connection.type === "stdio" ? 1 : CONNECT_ATTEMPTS;
    const deadline = AbortScope.under(undefined).abortAfter(
      this.timeoutMs,
      () =>
        new McpError(ErrorCode.RequestTimeout, `Connecting timed out after ${this.timeoutMs} ms`, {
          timeout: this.timeoutMs,
        }),
    );
    try {
      return await retry(() => this.connectOnce(deadline.signal), {
        policy: { maxAttempts: attempts, initialDelayMs: 50, maxDelayMs: 1000 },
        signal: deadline.signal,
        decide: (error) => ({ retry: !this.isClosed && isTransientNetworkFailure(error) }),
      });
    } catch (error) {
      if (error instanceof McpSessionInitError) throw error;
      // The deadline passed between two attempts.
      throw new McpSessionInitError(
        this.serverName,
        `Could not start an MCP session with ${this.serverName}: ${messageOf(error)}`,
        { cause: error },
      );
    } finally {
      deadline.release();
    }
  }

  private async connectOnce(deadline: AbortSignal): Promise<Client> {
    const transport = this.progress.tap(this.createTransport());
    const elicitation = this.elicitation;
    const capabilities = elicitation
      ? { elicitation: { form: { applyDefaults: elicitation.applyDefaults ?? true } } }
      : {};
    const client = new Client({ name: "agentkit", version: VERSION }, { capabilities });
    if (elicitation)
      client.setRequestHandler(ElicitRequestSchema, (request, extra) =>
        elicitation.handler(request.params, { signal: extra.signal }),
      );
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.toolListChanges += 1;
      if (this.toolList?.client === client) this.toolList = undefined;
    });
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    try {
      // The SDK times initialize only: the deadline also covers the transport's start.
      await untilAborted(client.connect(transport, { timeout: this.timeoutMs }), deadline, {
        reason: () => deadline.reason,
      });
    } catch (error) {
      await closeQuietly(client); // closes the transport, whichever step it was in
      throw new McpSessionInitError(
        this.serverName,
        `Could not start an MCP session with ${this.serverName}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    if (this.isClosed) {
      // close() was called while connecting: do not leak the new session.
      await closeQuietly(client);
      this.assertOpen();
    }
    this.client = client;
    return client;
  }

  /** Drops a session and closes it in the background; close() waits for it. */
  private retire(client: Client): void {
    if (this.client === client) this.client = undefined;
    const done: Promise<void> = closeQuietly(client, this.connection.type === "streamable-http").finally(() =>
      this.retired.delete(done),
    );
    this.retired.add(done);
  }

  private createTransport(): Transport {
    const c = this.connection;
    switch (c.type) {
      case "stdio":
        return new StdioClientTransport({
          command: c.command,
          args: c.args,
          env: c.env, // the SDK adds its safe defaults (HOME, PATH, ...), never the rest of process.env
          cwd: c.cwd,
          stderr: "inherit",
        });
      case "sse":
        return new SSEClientTransport(new URL(c.url), {
          requestInit: { headers: c.headers },
          authProvider: this.authProvider,
        });
      case "streamable-http":
        return new StreamableHTTPClientTransport(new URL(c.url), {
          requestInit: { headers: c.headers },
          authProvider: this.authProvider,
        });
    }
  }
}

/** Every page of the server's tools (at most 1,000 pages: a server that never ends its list is cut). */
async function listAllTools(client: Client, timeout: number, signal?: AbortSignal): Promise<McpToolDefinition[]> {
  const all: McpToolDefinition[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const params = cursor === undefined ? undefined : { cursor };
    const result = await withRequestSignal(signal, (own) => client.listTools(params, { timeout, signal: own }));
    all.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return all;
}

/** Attempts to open an HTTP session, the first included. */
const CONNECT_ATTEMPTS = 3;

/**
 * The socket failed before any answer: worth another try. `fetch failed` covers SSE, whose
 * error keeps only that text of the network failure.
 */
function isTransientNetworkFailure(error: unknown): boolean {
  const cause = error instanceof McpSessionInitError ? (error as { cause?: unknown }).cause : error;
  if (cause instanceof StreamableHTTPError) return false; // the server answered
  const text = `${messageOf(cause)} ${messageOf((cause as { cause?: unknown } | undefined)?.cause)}`;
  return /fetch failed|ECONNRESET|ECONNREFUSED|socket hang up|other side closed|EPIPE/i.test(text);
}

/** Closes a client, first ending its HTTP session on the server when asked; never throws. */
async function closeQuietly(client: Client, terminateHttpSession = false): Promise<void> {
  const transport = client.transport instanceof ProgressTap ? client.transport.inner : client.transport;
  if (terminateHttpSession && transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
    const timer = new Promise<void>((resolve) => setTimeout(resolve, 1000).unref());
    await Promise.race([transport.terminateSession().catch(() => undefined), timer]);
  }
  await client.close().catch(() => undefined);
}

/**
 * Failures that mean the session is gone (as opposed to a tool or
 * protocol error). Duck-typed: errors may come from another realm.
 */
export function isConnectionError(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  if (error instanceof StreamableHTTPError || error instanceof SseError) return true;
  if (typeof error !== "object" || error === null) return false;
  const text = `${messageOf(error)} ${messageOf((error as { cause?: unknown }).cause)}`;
  return /fetch failed|not connected|connection closed|ECONNREFUSED|ECONNRESET|EPIPE|socket hang up|other side closed/i.test(
    text,
  );
}

function messageOf(error: unknown): string {
  if (typeof error !== "object" || error === null) return String(error ?? "");
  const { message, cause } = error as { message?: unknown; cause?: { message?: unknown } };
  const text = typeof message === "string" ? message : String(error);
  return typeof cause?.message === "string" ? `${text} (${cause.message})` : text;
}
