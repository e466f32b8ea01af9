// A whole OAuth authorization-code flow with the analytics and logging plugins on: no row and no
// log line may hold the user's access or refresh token or the client secret.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  FunctionTool,
  getFunctionCalls,
  InMemoryCredentialService,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  Runner,
  type AuthConfig,
  type Content,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { AnalyticsPlugin, LoggingPlugin } from "../src/index.js";
import { MemorySink } from "./analytics-fixtures.js";

const REDIRECT = "http://127.0.0.1/callback";
let provider: OAuthTestProvider;
beforeAll(async () => {
  provider = await startOAuthProvider();
});
afterAll(async () => {
  await provider?.close();
});

describe("secrets in analytics rows and logs", () => {
  it("are never written during an OAuth flow", async () => {
    const config: AuthConfig = {
      authScheme: {
        type: "oauth2",
        flows: {
          authorizationCode: {
            authorizationUrl: provider.authorizationEndpoint,
            tokenUrl: provider.tokenEndpoint,
            scopes: { openid: "", "api.read": "" },
          },
        },
      },
      rawAuthCredential: {
        authType: "oauth2",
        oauth2: { clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri: REDIRECT },
      },
    };
    const tool = new FunctionTool({
      name: "whoami",
      description: "Who the user is.",
      execute: async (_args, context) => {
        const credential = await context.getCredential(config);
        if (!credential?.oauth2?.accessToken) {
          context.requestCredential(config);
          return { status: "waiting" };
        }
        return { sub: (await provider.introspect(credential.oauth2.accessToken)).sub };
      },
    });
    const sink = new MemorySink();
    const lines: string[] = [];
    const credentials = new InMemoryCredentialService();
    const sessions = new InMemorySessionService();
    const runner = new Runner({
      appName: "app",
      agent: new LlmAgent({
        name: "assistant",
        tools: [tool],
        model: new ScriptedModel({
          steps: [ScriptedModel.functionCall("whoami", {}), ScriptedModel.text("You are alice.")],
        }),
      }),
      sessionService: sessions,
      credentialService: credentials,
      plugins: [new AnalyticsPlugin({ sink }), new LoggingPlugin({ write: (line) => lines.push(line) })],
    });
    const session = await sessions.createSession({ appName: "app", userId: "u" });
    const run = async (message: Content) => {
      const out = [];
      for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: message })) out.push(e);
      return out;
    };
    const first = await run({ role: "user", parts: [{ text: "who am I?" }] });
    const request = first.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME)!;
    const authConfig = structuredClone((request.args as { authConfig: AuthConfig }).authConfig);
    authConfig.exchangedAuthCredential!.oauth2!.authResponseUri = await provider.authorize(
      authConfig.exchangedAuthCredential!.oauth2!.authUri!,
      "alice",
    );
    authConfig.exchangedAuthCredential!.oauth2!.redirectUri = REDIRECT;
    const second = await run({
      role: "user",
      parts: [
        {
          functionResponse: {
            id: request.id,
            name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
            response: authConfig as unknown as Record<string, unknown>,
          },
        },
      ],
    });
    expect(second.at(-1)?.content?.parts?.[0]?.text).toBe("You are alice.");
    await runner.close(); // flushes the analytics batch

    const stored = (await credentials.loadCredential(config, { appName: "app", userId: "u" } as never))!.oauth2!;
    expect(stored.accessToken && stored.refreshToken).toBeTruthy();
    const written = JSON.stringify(sink.rows) + lines.join("\n");
    expect(sink.rows.length).toBeGreaterThan(5);
    expect(lines.length).toBeGreaterThan(5);
    for (const secret of [stored.accessToken!, stored.refreshToken!, provider.clientSecret])
      expect(written).not.toContain(secret);
  });
});
