import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { FunctionTool } from "@agentkit/core";
import { createMcpHttpHandler } from "@agentkit/mcp";
import type { OAuthTestProvider } from "@agentkit/test-support/oauth-provider";

const packagesDir = resolve(import.meta.dirname, "../../../../packages");

/** A free port on 127.0.0.1 (the dev server's redirect URI must be known before it starts). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  return port;
}

export interface Recorder {
  url: string;
  /** Bearer tokens the resource server was shown, in order. */
  tokens: string[];
  /** `sub` of each authorized request. */
  subjects: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A REST API that answers `{ user }` for a token the authorization server says is active. */
export async function startProtectedApi(provider: OAuthTestProvider): Promise<Recorder> {
  const tokens: string[] = [];
  const subjects: string[] = [];
  const server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    if (token) tokens.push(token);
    void (token ? provider.introspect(token) : Promise.resolve<Record<string, unknown>>({ active: false })).then(
      (info) => {
        res.writeHead(info.active ? 200 : 401, { "content-type": "application/json" });
        if (info.active) subjects.push(String(info.sub));
        res.end(JSON.stringify(info.active ? { user: info.sub } : { error: "invalid_token" }));
      },
    );
  });
  const url = `${await listen(server)}/me`;
  return { url, tokens, subjects, close: () => new Promise((r) => server.close(() => r())) };
}

/** An MCP server that requires OAuth (protected-resource metadata, 401 challenge, introspected tokens). */
export async function startOAuthMcpServer(provider: OAuthTestProvider): Promise<Recorder> {
  const handler = createMcpHttpHandler({
    name: "calendar",
    tools: [
      new FunctionTool({
        name: "list_events",
        description: "Lists the user's events.",
        execute: () => ({ events: ["standup"] }),
      }),
    ],
  });
  const tokens: string[] = [];
  const subjects: string[] = [];
  let base = "";
  const server = createServer((req, res) => {
    if (req.url?.startsWith("/.well-known/oauth-protected-resource")) {
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
    if (token) tokens.push(token);
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
  base = await listen(server);
  return {
    url: `${base}/mcp`,
    tokens,
    subjects,
    close: async () => {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const OAUTH_AGENT = `import { readFileSync } from "node:fs";
import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
const config = JSON.parse(readFileSync(new URL("../config.json", import.meta.url), "utf8"));
// No redirect URI here: the dev UI sends the popup back to its own callback route.
const authConfig = {
  authScheme: { type: "oauth2", flows: { authorizationCode: {
    authorizationUrl: config.authorizationEndpoint, tokenUrl: config.tokenEndpoint,
    scopes: { openid: "sign in", "api.read": "read the profile" } } } },
  rawAuthCredential: { authType: "oauth2", oauth2: { clientId: config.clientId, clientSecret: config.clientSecret } },
};
const getProfile = new FunctionTool({
  name: "get_profile",
  description: "Reads the user's profile.",
  parameters: { type: "object", properties: {} },
  execute: async (_args, context) => {
    const credential = await context.getCredential(authConfig);
    if (!credential) {
      context.requestCredential(authConfig);
      return { status: "waiting for the user to authorize" };
    }
    const response = await fetch(config.apiUrl, { headers: { authorization: "Bearer " + credential.oauth2.accessToken } });
    return await response.json();
  },
});
const step = (request) => {
  const last = request.contents.at(-1)?.parts?.find((p) => p.functionResponse)?.functionResponse;
  if (last?.response?.user) return ScriptedModel.text("Signed in as " + last.response.user + ".");
  return ScriptedModel.functionCall("get_profile", {});
};
export const rootAgent = new LlmAgent({
  name: "oauth_agent",
  description: "Reads the user's profile with their OAuth token.",
  tools: [getProfile],
  model: new ScriptedModel({ steps: Array.from({ length: 40 }, () => step) }),
});
`;

const MCP_AGENT = `import { readFileSync } from "node:fs";
import { LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { McpToolset } from "@agentkit/mcp";
const config = JSON.parse(readFileSync(new URL("../config.json", import.meta.url), "utf8"));
const step = (request) => {
  const names = Object.keys(request.toolsDict ?? {});
  const last = request.contents.at(-1)?.parts?.find((p) => p.functionResponse)?.functionResponse;
  if (last?.name === "list_events") return ScriptedModel.text("Events: " + last.response.structuredContent.events.join(", ") + ".");
  if (last?.response?.connected || names.includes("list_events")) return ScriptedModel.functionCall("list_events", {});
  return ScriptedModel.functionCall(names.find((n) => n.startsWith("authorize_")), {});
};
export const rootAgent = new LlmAgent({
  name: "mcp_agent",
  description: "Reads the user's calendar from an MCP server that requires OAuth.",
  tools: [new McpToolset({ connection: { type: "streamable-http", url: config.mcpUrl }, auth: { redirectUri: config.redirectUri } })],
  model: new ScriptedModel({ steps: Array.from({ length: 40 }, () => step) }),
});
`;

/** An agents directory with the two OAuth apps and their config. */
export async function makeOAuthAgents(
  config: Record<string, string>,
): Promise<{ dir: string; cleanup(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-dev-ui-oauth-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  await mkdir(join(dir, "node_modules", "@agentkit"), { recursive: true });
  for (const pkg of ["core", "mcp"])
    await symlink(join(packagesDir, pkg), join(dir, "node_modules", "@agentkit", pkg), "dir");
  await writeFile(join(dir, "config.json"), JSON.stringify(config));
  for (const [app, source] of [
    ["oauth_agent", OAUTH_AGENT],
    ["mcp_agent", MCP_AGENT],
  ] as const) {
    await mkdir(join(dir, app));
    await writeFile(join(dir, app, "agent.js"), source);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
