import {
  BaseAgent,
  BaseTool,
  ConfigurationError,
  getTextOf,
  InMemoryArtifactService,
  InMemoryRunner,
  InMemorySessionService,
  InvocationContext,
  isFinalResponse,
  LlmAgent,
  newInvocationId,
  PluginManager,
  TEMP_PREFIX,
  ToolContext,
  type Runner,
} from "@agentkit/core";
import { validateToolName } from "@agentkit/core/internal";
import type { CallToolResult, Tool as McpToolDefinition } from "@modelcontextprotocol/sdk/types.js";

/** Expose agentkit tools (FunctionTool or any tool with a declaration). */
export interface McpToolsServerOptions {
  tools: BaseTool[];
  /** Server name reported in `initialize` (default "agentkit"). */
  name?: string;
  version?: string;
  agent?: undefined;
}

/** Expose a whole agent as one tool `{ request: string }` that runs it and returns its final text. */
export interface McpAgentServerOptions {
  agent: BaseAgent;
  /** Runs the agent; the caller owns it. Default: an InMemoryRunner owned (and closed) by the server. */
  runner?: Runner;
  /** The tool's name (default: the agent's name). */
  toolName?: string;
  /**
   * Keep the session each call runs in (e.g. in a persistent session service, as a record of the
   * calls; deleting them is then the caller's job). Default false: it is deleted when the call ends.
   */
  keepSessions?: boolean;
  name?: string;
  version?: string;
  tools?: undefined;
}

export type McpServerOptions = McpToolsServerOptions | McpAgentServerOptions;

/** What the MCP request handlers need, shared by every session of one served endpoint. */
export interface ToolHost {
  readonly info: { name: string; version: string };
  listTools(): McpToolDefinition[];
  callTool(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
  close(): Promise<void>;
}

const USER_ID = "mcp-client";

export function createToolHost(options: McpServerOptions): ToolHost {
  if (options === null || typeof options !== "object")
    throw new ConfigurationError("createMcpServer needs { tools } or { agent, runner? }.");
  if (options.agent !== undefined) return agentHost(options);
  if (Array.isArray(options.tools)) return toolsHost(options);
  throw new ConfigurationError("createMcpServer needs { tools: BaseTool[] } or { agent, runner? }.");
}

function toolsHost(options: McpToolsServerOptions): ToolHost {
  const byName = new Map<string, BaseTool>();
  const definitions: McpToolDefinition[] = [];
  for (const tool of options.tools) {
    if (!(tool instanceof BaseTool))
      throw new ConfigurationError(
        "createMcpServer: every entry of tools must be a BaseTool (toolsets are not served).",
      );
    const declaration = tool.getDeclaration();
    if (!declaration)
      throw new ConfigurationError(
        `createMcpServer: tool "${tool.name}" is run by the model itself and cannot be served over MCP.`,
      );
    if (byName.has(tool.name)) throw new ConfigurationError(`createMcpServer: two tools are named "${tool.name}".`);
    byName.set(tool.name, tool);
    definitions.push({
      name: tool.name,
      description: tool.description,
      inputSchema: inputSchemaOf(declaration.parametersJsonSchema),
    });
  }
  const info = { name: options.name ?? "agentkit", version: options.version ?? "0.1.0" };
  // One session holds the state tools write, for every call of the endpoint. Only its state is
  // kept: a tool's writes land in `session.state` as it makes them (see `State`), so no event is
  // appended (an event per call would make the session grow for as long as the server runs).
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const agent = new LlmAgent({ name: "mcp_tools", tools: options.tools });
  const sessionReady = sessionService.createSession({ appName: info.name, userId: USER_ID });

  return {
    info,
    listTools: () => structuredClone(definitions),
    async callTool(name, args, signal) {
      const tool = byName.get(name);
      if (!tool) return errorResult(`Unknown tool "${name}". Available tools: ${[...byName.keys()].join(", ")}.`);
      const session = await sessionReady;
      const invocationId = newInvocationId();
      const ctx = new InvocationContext({
        invocationId,
        agent,
        session,
        sessionService,
        artifactService,
        pluginManager: new PluginManager(),
        signal,
      });
      const toolContext = new ToolContext(ctx, { functionCallId: `mcp-${invocationId}` });
      let value: unknown;
      try {
        value = await tool.runAsync({ args, toolContext });
      } catch (error) {
        return errorResult(error instanceof Error ? error.message : String(error));
      } finally {
        // `temp:` keys live for one invocation, and each call is one.
        for (const key of Object.keys(toolContext.actions.stateDelta))
          if (key.startsWith(TEMP_PREFIX)) delete session.state[key];
      }
      return toCallToolResult(value);
    },
    close: async () => undefined,
  };
}

function agentHost(options: McpAgentServerOptions): ToolHost {
  const { agent } = options;
  if (!(agent instanceof BaseAgent))
    throw new ConfigurationError("createMcpServer: agent must be a BaseAgent (e.g. an LlmAgent).");
  const toolName = options.toolName ?? agent.name;
  validateToolName(toolName);
  const ownsRunner = options.runner === undefined;
  const runner = options.runner ?? new InMemoryRunner({ agent, appName: agent.name });
  const info = { name: options.name ?? agent.name, version: options.version ?? "0.1.0" };
  const definition: McpToolDefinition = {
    name: toolName,
    description: agent.description || `Runs the agent "${agent.name}" on a request and returns its answer.`,
    inputSchema: {
      type: "object",
      properties: { request: { type: "string", description: "What to ask the agent." } },
      required: ["request"],
    },
  };

  return {
    info,
    listTools: () => [structuredClone(definition)],
    async callTool(name, args, signal) {
      if (name !== toolName) return errorResult(`Unknown tool "${name}". Available tools: ${toolName}.`);
      if (typeof args.request !== "string") return errorResult(`Tool "${toolName}" needs { request: string }.`);
      // A fresh session per call, as AgentTool does: calls are independent and may run concurrently.
      const session = await runner.sessionService.createSession({ appName: runner.appName, userId: USER_ID });
      let answer = "";
      try {
        for await (const event of runner.runAsync({
          userId: USER_ID,
          sessionId: session.id,
          newMessage: args.request,
          signal,
        })) {
          if (event.errorMessage) return errorResult(`Agent "${agent.name}" failed: ${event.errorMessage}`);
          if (isFinalResponse(event) && event.content && !event.partial) answer = getTextOf(event.content) || answer;
        }
      } catch (error) {
        return errorResult(`Agent "${agent.name}" failed: ${error instanceof Error ? error.message : String(error)}`);
      } finally {
        // Also with the caller's runner: a session per call kept forever grows with every call.
        if (!options.keepSessions)
          await runner.sessionService
            .deleteSession({ appName: runner.appName, userId: USER_ID, sessionId: session.id })
            .catch(() => undefined); // the answer stands; a session that could not be deleted stays
      }
      return { content: [{ type: "text", text: answer }] };
    },
    close: () => (ownsRunner ? runner.close() : Promise.resolve()),
  };
}

function inputSchemaOf(schema: unknown): McpToolDefinition["inputSchema"] {
  if (typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "object") {
    return structuredClone(schema) as McpToolDefinition["inputSchema"];
  }
  return { type: "object", properties: {} };
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** Strings become text; objects become JSON text plus `structuredContent`; a lone `{ error }` is an error result. */
function toCallToolResult(value: unknown): CallToolResult {
  if (typeof value === "string") return { content: [{ type: "text", text: value }] };
  if (value === undefined || value === null) return { content: [] };
  if (typeof value === "object" && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    if (keys.length === 1 && keys[0] === "error" && typeof record.error === "string") return errorResult(record.error);
    return { content: [{ type: "text", text: JSON.stringify(record) }], structuredContent: record };
  }
  return { content: [{ type: "text", text: JSON.stringify(value) }] };
}
