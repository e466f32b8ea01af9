import { BaseTool, type FunctionDeclaration, type ToolRunRequest } from "@agentkit/core";
import type { McpUserAuth } from "./mcp-user-auth.js";
import { isUnauthorized } from "./mcp-user-auth.js";
import type { McpSessionManager } from "./mcp-session-manager.js";
import { withRequestSignal } from "./request-signal.js";

/**
 * Stands in for an MCP server's tools while the user has not authorized it: the server will not
 * even list them. Calling it asks the user to authorize; once they have, it answers with the
 * server's tool names and the next model call sees the real tools.
 */
export class McpAuthorizeTool extends BaseTool {
  constructor(
    name: string,
    private readonly host: string,
    private readonly userAuth: McpUserAuth,
    private readonly timeoutMs: number,
  ) {
    super({
      name,
      description: `Connects to ${host} on the user's behalf. Its tools become available once the user has authorized access; call this first when the user asks for something ${host} provides.`,
    });
  }

  override getDeclaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parametersJsonSchema: { type: "object", properties: {} } };
  }

  override async runAsync({ toolContext }: ToolRunRequest): Promise<unknown> {
    return this.userAuth.use(toolContext, async (session) => {
      await this.userAuth.completePending(toolContext, session);
      try {
        const names = await listToolNames(session.manager, this.timeoutMs, toolContext.signal);
        return { connected: true, server: this.host, tools: names };
      } catch (error) {
        if (!isUnauthorized(error)) throw error;
        return this.userAuth.requestAuthorization(toolContext, session);
      }
    });
  }
}

async function listToolNames(manager: McpSessionManager, timeout: number, signal?: AbortSignal): Promise<string[]> {
  const result = await manager.run(
    (client) => withRequestSignal(signal, (own) => client.listTools(undefined, { timeout, signal: own })),
    signal,
  );
  return result.tools.map((t) => t.name);
}
