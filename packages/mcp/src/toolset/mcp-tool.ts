import {
  BaseTool,
  type FunctionDeclaration,
  type JsonObjectSchema,
  type ToolContext,
  type ToolRunRequest,
} from "@agentkit/core";
import { ErrorCode, McpError, type Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";
import { McpToolCallError, McpToolsetError } from "../errors/mcp-errors.js";
import type { McpSessionManager } from "./mcp-session-manager.js";
import { isUnauthorized, type McpUserAuth } from "./mcp-user-auth.js";
import { toToolResponse, type McpToolResponse } from "./result-conversion.js";
import { toModelToolName, toParametersSchema } from "./schema-conversion.js";
import { AbortScope, deepCopy } from "@agentkit/core/internal";

/** Default limit of a call's whole duration (`McpToolsetOptions.maxTotalTimeoutMs`). */
const DEFAULT_MAX_TOTAL_TIMEOUT_MS = 10 * 60_000;

/** A progress notification of a running MCP tool call. */
export interface McpProgress {
  /** The tool's name as the model sees it. */
  toolName: string;
  progress: number;
  total?: number;
  message?: string;
}

export type McpProgressHandler = (progress: McpProgress, toolContext: ToolContext) => void;

export interface McpToolOptions {
  definition: McpToolDefinition;
  session: McpSessionManager;
  toolNamePrefix?: string;
  timeoutMs: number;
  /** Limit of the call's whole duration, progress or not. Default: 10 minutes, or `timeoutMs` when longer. */
  maxTotalTimeoutMs?: number;
  onProgress?: McpProgressHandler;
  /** Per-user authorization: each call runs on the calling user's session. */
  userAuth?: McpUserAuth;
}

/**
 * One tool of an MCP server. Its declaration is the server's input schema; a call goes through
 * the toolset's shared session with the invocation's AbortSignal (cancellation is sent to the
 * server), reports progress, and returns `{ content, text?, structuredContent? }`. A result with
 * `isError` is thrown as `McpToolCallError`, which the flow reports to the model.
 */
export class McpTool extends BaseTool {
  /** The tool's name on the MCP server (the model may see a prefixed or cleaned name). */
  readonly mcpName: string;
  readonly definition: McpToolDefinition;
  private readonly session: McpSessionManager;
  private readonly timeoutMs: number;
  private readonly maxTotalTimeoutMs: number;
  private readonly onProgress?: McpProgressHandler;
  private readonly userAuth?: McpUserAuth;
  private schema?: JsonObjectSchema;

  constructor(options: McpToolOptions) {
    const { definition } = options;
    super({
      name: toModelToolName(definition.name, options.toolNamePrefix),
      description: definition.description ?? definition.title ?? definition.annotations?.title ?? "",
    });
    this.mcpName = definition.name;
    this.definition = definition;
    this.session = options.session;
    this.timeoutMs = options.timeoutMs;
    this.maxTotalTimeoutMs = options.maxTotalTimeoutMs ?? Math.max(DEFAULT_MAX_TOTAL_TIMEOUT_MS, options.timeoutMs);
    this.onProgress = options.onProgress;
    this.userAuth = options.userAuth;
  }

  /** The converted input schema; throws `McpToolDeclarationError` when it cannot be declared. */
  get parametersJsonSchema(): JsonObjectSchema {
    this.schema ??= toParametersSchema(this.mcpName, this.definition.inputSchema);
    return this.schema;
  }

  override getDeclaration(): FunctionDeclaration {
    return {
      name: this.name,
      description: this.description,
      parametersJsonSchema: deepCopy(this.parametersJsonSchema),
    };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<McpToolResponse | Record<string, unknown>> {
    toolContext.signal?.throwIfAborted();
    const userAuth = this.userAuth;
    if (!userAuth) return this.call(this.session, args, toolContext);
    // Per-user authorization: the call runs on the user's session, which stays in use until it ends.
    return userAuth.use(toolContext, async (userSession) => {
      await userAuth.completePending(toolContext, userSession);
      try {
        return await this.call(userSession.manager, args, toolContext);
      } catch (error) {
        // Not authorized (yet, or for this scope): ask the user; the call runs again afterwards.
        if (!toolContext.signal?.aborted && isUnauthorized(error))
          return userAuth.requestAuthorization(toolContext, userSession);
        throw error;
      }
    });
  }

  /** One `tools/call` on `session`; a failure that is not an authorization refusal becomes `McpToolCallError`. */
  private async call(
    session: McpSessionManager,
    args: Record<string, unknown> | undefined,
    toolContext: ToolContext,
  ): Promise<McpToolResponse> {
    const signal = toolContext.signal;
    const onProgress = this.onProgress;
    // Progress arrives through the session's listeners, every notification before the result;
    // the SDK's `onprogress` (a no-op here) only makes it send a progress token and restart the
    // call's timer on progress. The SDK checks `maxTotalTimeout` only when progress arrives and
    // then sends the server no cancellation: the call's own deadline ends it on time, and its
    // abort sends `notifications/cancelled`.
    const progress = onProgress
      ? session.progress.subscribe((p) => onProgress({ toolName: this.name, ...p }, toolContext))
      : undefined;
    let result: Record<string, unknown>;
    try {
      result = await session.run(
        (client) =>
          withTotalDeadline(signal, this.maxTotalTimeoutMs, (own) =>
            client.callTool(
              { name: this.mcpName, arguments: args ?? {}, ...(progress ? { _meta: progress.meta } : {}) },
              undefined,
              {
                signal: own,
                timeout: this.timeoutMs,
                resetTimeoutOnProgress: true,
                maxTotalTimeout: this.maxTotalTimeoutMs,
                onprogress: progress ? () => undefined : undefined,
              },
            ),
          ),
        signal,
      );
    } catch (error) {
      if (signal?.aborted || error instanceof McpToolsetError) throw error;
      if (this.userAuth && isUnauthorized(error)) throw error; // runAsync asks the user
      throw new McpToolCallError(
        this.name,
        `MCP tool "${this.mcpName}" failed ` +
          `on ${this.session.serverName}: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      );
    } finally {
      progress?.stop();
    }
    const response = toToolResponse(result);
    if (result.isError === true) {
      throw new McpToolCallError(
        this.name,
        `MCP tool "${this.mcpName}" returned an error: ${response.text ?? "(no message)"}`,
        { result: response },
      );
    }
    return response;
  }
}

/**
 * Runs one SDK request with a signal of its own (as `withRequestSignal`: it follows `signal`, the
 * run's, while the request is in flight and is released when it settles) that also aborts after
 * `totalMs` with the SDK's request-timeout error: the SDK rejects the request with it and sends
 * the server `notifications/cancelled`.
 */
async function withTotalDeadline<T>(
  signal: AbortSignal | undefined,
  totalMs: number,
  request: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const scope = AbortScope.under(signal).abortAfter(
    totalMs,
    () =>
      new McpError(ErrorCode.RequestTimeout, `Request exceeded its total time limit of ${totalMs} ms`, {
        maxTotalTimeout: totalMs,
      }),
  );
  try {
    return await request(scope.signal);
  } catch (error) {
    // The SDK's own `maxTotalTimeout` (checked as progress arrives, so it may come first by a
    // hair) fails the call without telling the server: the abort sends the cancellation.
    if (!scope.signal.aborted && isTotalTimeout(error)) scope.abort(error);
    throw error;
  } finally {
    scope.release();
  }
}

/** The SDK's error for a request past its `maxTotalTimeout`. */
function isTotalTimeout(error: unknown): boolean {
  return (
    error instanceof McpError &&
    error.code === ErrorCode.RequestTimeout &&
    (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout !== undefined
  );
}
