import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { FunctionTool } from "@agentkit/core";
import type { OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { createMcpHttpHandler } from "../src/index.js";

/**
 * An MCP server that requires OAuth (the MCP authorization spec's resource server): protected-
 * resource metadata at `/.well-known/oauth-protected-resource/mcp` naming the authorization
 * server, a 401 with `WWW-Authenticate: Bearer resource_metadata=...` without a valid token, and
 * tokens checked by introspection at the authorization server. Records which subject made each call.
 */
export interface OAuthMcpServer {
  url: string;
  /** `sub` of each authorized MCP request, in order. */
  subjects: string[];
  close(): Promise<void>;
}

export async function startOAuthMcpServer(
  provider: OAuthTestProvider,
  options: { port?: number } = {},
): Promise<OAuthMcpServer> {
  const handler = createMcpHttpHandler({
    name: "calendar",
    tools: [
      new FunctionTool({
        name: "list_events",
        description: "Lists the user's calendar events.",
        execute: () => ({ events: ["standup"] }),
      }),
    ],
  });
  const subjects: string[] = [];
  let base = "";
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (
      req.url === "/.well-known/oauth-protected-resource/mcp" ||
      req.url === "/.well-known/oauth-protected-resource"
    ) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          resource: `${base}/mcp`,
          authorization_servers: [provider.issuer],
          scopes_supported: ["api.read"],
        }),
      );
      return;
    }
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    void (token ? provider.introspect(token) : Promise.resolve<Record<string, unknown>>({ active: false })).then(
      (info) => {
        if (!info.active) {
          res.writeHead(401, {
            "content-type": "application/json",
            "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="api.read"`,
          });
          res.end(JSON.stringify({ error: "invalid_token" }));
          return;
        }
        subjects.push(String(info.sub));
        handler.app(req, res);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/mcp`,
    subjects,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
