import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  getFunctionCalls,
  getFunctionResponses,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  Runner,
  type AuthConfig,
  type Content,
  type Event,
  type FunctionCall,
  type LlmRequest,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { McpToolset } from "../src/index.js";
import { startOAuthMcpServer, type OAuthMcpServer } from "./oauth-mcp-server.js";

const REDIRECT = "http://127.0.0.1/callback";
let provider: OAuthTestProvider;
let mcp: OAuthMcpServer;

beforeAll(async () => {
  // The authorization server lets the MCP client register itself and issues tokens for the MCP resource.
  provider = await startOAuthProvider({ registration: true, resourcesFrom: () => [mcp.url] });
  mcp = await startOAuthMcpServer(provider);
});

afterAll(async () => {
  await mcp?.close();
  await provider?.close();
});

function toolNames(request: LlmRequest): string[] {
  return Object.keys(request.toolsDict ?? {});
}

function credentialRequest(events: Event[]): FunctionCall {
  const call = events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
  if (!call) throw new Error("no credential request");
  return call;
}

function answer(req: FunctionCall, redirect: string): Content {
  const authConfig = structuredClone((req.args as { authConfig: AuthConfig }).authConfig);
  authConfig.exchangedAuthCredential!.oauth2!.authResponseUri = redirect;
  authConfig.exchangedAuthCredential!.oauth2!.redirectUri = REDIRECT;
  return {
    role: "user",
    parts: [
      {
        functionResponse: {
          id: req.id,
          name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
          response: authConfig as unknown as Record<string, unknown>,
        },
      },
    ],
  };
}

describe("McpToolset with MCP authorization (per user)", () => {
  it("offers an authorize tool, runs the OAuth flow through the user, then the server's tools with that user's token", async () => {
    const toolset = new McpToolset({
      connection: { type: "streamable-http", url: mcp.url },
      auth: { redirectUri: REDIRECT },
    });
    const model = new ScriptedModel();
    const sessions = new InMemorySessionService();
    const credentials = new InMemoryCredentialService();
    const runner = new Runner({
      appName: "app",
      agent: new LlmAgent({ name: "assistant", model, tools: [toolset] }),
      sessionService: sessions,
      credentialService: credentials,
    });
    const run = async (userId: string, sessionId: string, message: Content) => {
      const out: Event[] = [];
      for await (const e of runner.runAsync({ userId, sessionId, newMessage: message })) out.push(e);
      return out;
    };
    try {
      for (const user of ["alice", "bob"]) {
        const session = (await sessions.createSession({ appName: "app", userId: user })).id;
        let authorizeName = "";
        model.push({
          expect: (request) => {
            authorizeName = toolNames(request).find((n) => n.startsWith("authorize_"))!;
            expect(toolNames(request)).toEqual([authorizeName]);
          },
          step: (request) => ScriptedModel.functionCall(toolNames(request)[0]!, {}),
        });
        const first = await run(user, session, { role: "user", parts: [{ text: "my events?" }] });
        const req = credentialRequest(first);
        const authUri = new URL(
          (req.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!,
        );
        expect(authUri.searchParams.get("code_challenge_method")).toBe("S256");
        expect(authUri.searchParams.get("resource")).toBe(mcp.url);
        expect(JSON.stringify(first)).not.toMatch(/code_verifier|codeVerifier/);

        // After authorizing, the authorize call answers with the server's tools, and the model sees them.
        model.push({
          expect: (request) => expect(toolNames(request)).toEqual(["list_events"]),
          step: ScriptedModel.functionCall("list_events", {}),
        });
        model.push(ScriptedModel.text("done"));
        const second = await run(user, session, answer(req, await provider.authorize(authUri.toString(), user)));
        expect(getFunctionResponses(second[0]!)[0]!.response).toMatchObject({
          connected: true,
          tools: ["list_events"],
        });
        const listed = second.flatMap(getFunctionResponses).find((r) => r.name === "list_events");
        expect(listed?.response).toMatchObject({ structuredContent: { events: ["standup"] } });
        expect(mcp.subjects.at(-1)).toBe(user);
      }
      model.assertConsumed();
    } finally {
      await runner.close();
    }
  });

  it("rejects auth on a stdio connection and a missing redirect URI", () => {
    expect(
      () => new McpToolset({ connection: { type: "stdio", command: "x" }, auth: { redirectUri: REDIRECT } }),
    ).toThrow(/stdio/);
    expect(
      () => new McpToolset({ connection: { type: "streamable-http", url: "http://127.0.0.1:1/mcp" }, auth: {} }),
    ).toThrow(/redirectUri/);
  });
});
