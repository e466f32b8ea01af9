import { BaseToolset, ConfigurationError, type BaseTool, type ReadonlyContext, type ToolFilter } from "@agentkit/core";
import type { Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { McpToolDeclarationError, McpToolLoadError, McpToolsetError } from "../errors/mcp-errors.js";
import { parseConnectionParameters, type McpConnectionParameters } from "./connection-params.js";
import { McpSessionManager, type McpElicitationOptions } from "./mcp-session-manager.js";
import { McpTool, type McpProgressHandler } from "./mcp-tool.js";
import { checkMcpAuth, mcpAuthSchema, type McpAuthOptions } from "./mcp-auth-options.js";
import { McpAuthorizeTool } from "./mcp-authorize-tool.js";
import { isUnauthorized, McpUserAuth, type McpUserSessionOptions } from "./mcp-user-auth.js";
import { ClientCredentialsProvider, PrivateKeyJwtProvider } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";

export interface McpToolsetOptions {
  connection: McpConnectionParameters;
  /** Tool names (the MCP name or the prefixed name) or a predicate over the tools. */
  toolFilter?: ToolFilter;
  /** Prepended with `_` to every tool name the model sees. */
  toolNamePrefix?: string;
  /** Timeout of each MCP request (connect, list, call; a call's timer restarts on progress). Default 60 s. */
  timeoutMs?: number;
  /**
   * Limit of a tool call's whole duration, however often the server reports progress (each
   * progress notification restarts the `timeoutMs` timer). Default 10 minutes, or `timeoutMs`
   * when that is longer.
   */
  maxTotalTimeoutMs?: number;
  /** Receives progress notifications of running tool calls. */
  onProgress?: McpProgressHandler;
  /**
   * Lets the server ask the user for input during a call
   * (`elicitation/create`); without it the capability is not offered.
   */
  elicitation?: McpElicitationOptions;
  /** MCP authorization (OAuth 2.1): per user, or client credentials (see docs/auth.md). */
  auth?: McpAuthOptions;
  /**
   * Keep the tool list between model requests while the server announces changes to it
   * (`tools.listChanged`); a server that does not is asked on every request. Default true;
   * false asks on every request.
   */
  cacheToolList?: boolean;
  /**
   * Bounds of the per-user sessions of `auth` (authorization code): at most `maxSessions`
   * (default 100; the least recently used idle ones are closed beyond it), each closed after
   * `idleTimeoutMs` unused (default 15 minutes). A session in use is never closed; a user whose
   * session was closed gets a new one on their next call (their tokens stay in the credential service).
   */
  userSessions?: McpUserSessionOptions;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

const optionsSchema = z.object({
  connection: z.unknown(),
  toolFilter: z
    .union([z.array(z.string()), z.custom<(...args: unknown[]) => boolean>((v) => typeof v === "function")])
    .optional(),
  toolNamePrefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,40}$/, "use up to 40 letters, digits, _ or -")
    .optional(),
  timeoutMs: z.number().int().positive().optional(),
  maxTotalTimeoutMs: z.number().int().positive().optional(),
  onProgress: z.custom<McpProgressHandler>((v) => typeof v === "function", "must be a function").optional(),
  elicitation: z
    .object({
      handler: z.custom<McpElicitationOptions["handler"]>((v) => typeof v === "function", "must be a function"),
      applyDefaults: z.boolean().optional(),
    })
    .optional(),
  auth: mcpAuthSchema.optional(),
  cacheToolList: z.boolean().optional(),
  userSessions: z
    .strictObject({
      maxSessions: z.number().int().positive().optional(),
      idleTimeoutMs: z.number().int().positive().optional(),
      now: z.custom<() => number>((v) => typeof v === "function", "must be a function").optional(),
    })
    .optional(),
});

/**
 * The tools of one MCP server (stdio, SSE or streamable HTTP). The toolset owns one client
 * session, shared by `getTools` and every call and reconnected once when it drops; `close()`
 * (called by `runner.close()`) ends it and reaps a stdio child.
 */
export class McpToolset extends BaseToolset {
  readonly connection: McpConnectionParameters;
  readonly timeoutMs: number;
  /** Limit of a tool call's whole duration (see `McpToolsetOptions.maxTotalTimeoutMs`). */
  readonly maxTotalTimeoutMs: number;
  private readonly session: McpSessionManager;
  private readonly onProgress?: McpProgressHandler;
  private readonly userAuth?: McpUserAuth;
  private readonly built = new WeakMap<McpToolDefinition[], McpTool[]>();

  constructor(options: McpToolsetOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid McpToolset options: ${issues}.`);
    }
    const connection = parseConnectionParameters(options.connection);
    super({ toolFilter: options.toolFilter, toolNamePrefix: options.toolNamePrefix });
    this.connection = connection;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? Math.max(DEFAULT_MAX_TOTAL_TIMEOUT_MS, this.timeoutMs);
    this.onProgress = options.onProgress;
    const auth = options.auth;
    if (auth) checkMcpAuth(auth, connection.type);
    const sessionOptions = {
      connection,
      timeoutMs: this.timeoutMs,
      elicitation: options.elicitation,
      cacheToolList: options.cacheToolList ?? true,
    };
    this.session = new McpSessionManager({
      ...sessionOptions,
      ...(auth?.grant === "client_credentials" ? { authProvider: machineProvider(auth) } : {}),
    });
    if (auth && auth.grant !== "client_credentials" && connection.type !== "stdio") {
      this.userAuth = new McpUserAuth(auth, connection.url, sessionOptions, options.userSessions);
    }
  }

  /** A short name of the server (for logs and errors). */
  get serverName(): string {
    return this.session.serverName;
  }

  /** Lists the server's tools (every page), applies the filter and checks their declarations. */
  override async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    const signal = context?.signal;
    let definitions: McpToolDefinition[];
    if (this.userAuth && !context) {
      throw new ConfigurationError(
        `The MCP toolset for ${this.serverName} authorizes per user: list its tools with the caller's context.`,
      );
    }
    const userAuth = this.userAuth;
    try {
      definitions =
        userAuth && context
          ? await userAuth.use(context, (s) => s.manager.listTools(this.timeoutMs, signal))
          : await this.session.listTools(this.timeoutMs, signal);
    } catch (error) {
      if (this.userAuth && !signal?.aborted && isUnauthorized(error)) return [this.authorizeTool()];
      if (signal?.aborted || error instanceof McpToolsetError) throw error;
      throw new McpToolLoadError(
        this.serverName,
        `Could not list the tools of ${this.serverName}: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    }
    const tools = this.toolsOf(definitions).filter((tool) => this.isToolSelected(tool, context));
    const seen = new Map<string, string>();
    for (const tool of tools) {
      void tool.parametersJsonSchema; // throws McpToolDeclarationError for a schema the model cannot take
      const other = seen.get(tool.name);
      if (other !== undefined) {
        throw new McpToolDeclarationError(
          tool.mcpName,
          `MCP tools "${other}" and "${tool.mcpName}" of ${this.serverName} both become "${tool.name}"; exclude one ` +
            `with toolFilter.`,
        );
      }
      seen.set(tool.name, tool.mcpName);
    }
    return tools;
  }

  /** The tools of a listing; a kept listing (see `McpSessionManager.listTools`) keeps its tools and their converted schemas. */
  private toolsOf(definitions: McpToolDefinition[]): McpTool[] {
    let tools = this.built.get(definitions);
    if (!tools) {
      tools = definitions.map(
        (definition) =>
          new McpTool({
            definition,
            session: this.session,
            toolNamePrefix: this.toolNamePrefix,
            timeoutMs: this.timeoutMs,
            maxTotalTimeoutMs: this.maxTotalTimeoutMs,
            onProgress: this.onProgress,
            userAuth: this.userAuth,
          }),
      );
      this.built.set(definitions, tools);
    }
    return tools;
  }

  /** Ends the MCP session (terminating a stdio child), and every user's session. Safe to call more than once. */
  override async close(): Promise<void> {
    await Promise.all([this.session.close(), this.userAuth?.close()]);
  }

  /** The one tool offered while the user has not authorized the server. */
  private authorizeTool(): McpAuthorizeTool {
    const host = new URL((this.connection as { url: string }).url).host;
    const slug = host.replace(/[^A-Za-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
    const name = this.toolNamePrefix ? `${this.toolNamePrefix}_authorize` : `authorize_${slug}`.slice(0, 64);
    return new McpAuthorizeTool(name, host, this.userAuth!, this.timeoutMs);
  }

  /** A list filter matches the MCP name or the name the model sees. */
  protected override isToolSelected(tool: BaseTool, context?: ReadonlyContext): boolean {
    const filter = this.toolFilter;
    if (Array.isArray(filter) && tool instanceof McpTool)
      return filter.includes(tool.name) || filter.includes(tool.mcpName);
    return super.isToolSelected(tool, context);
  }
}

/** The SDK's client-credentials provider: a client secret, or a private key (`private_key_jwt`). */
function machineProvider(auth: McpAuthOptions): OAuthClientProvider {
  if (auth.privateKeyPem) {
    return new PrivateKeyJwtProvider({
      clientId: auth.clientId!,
      privateKey: auth.privateKeyPem,
      algorithm: auth.signingAlgorithm ?? "RS256",
      ...(auth.scopes?.length ? { scope: auth.scopes.join(" ") } : {}),
    });
  }
  return new ClientCredentialsProvider({
    clientId: auth.clientId!,
    clientSecret: auth.clientSecret!,
    ...(auth.scopes?.length ? { scope: auth.scopes.join(" ") } : {}),
  });
}
