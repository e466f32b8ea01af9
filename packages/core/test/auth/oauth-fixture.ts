import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { z } from "zod";
import {
  FunctionTool,
  getFunctionCalls,
  InMemorySessionService,
  LlmAgent,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  Runner,
  type AuthConfig,
  type BaseCredentialService,
  type BaseTool,
  type Content,
  type Event,
  type FunctionCall,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

export const REDIRECT_URI = "http://127.0.0.1/callback";

/** A protected API: answers the token's subject when the authorization server says it is active. */
export async function startProtectedApi(provider: OAuthTestProvider): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    void (async () => {
      const info = token ? await provider.introspect(token) : { active: false };
      res.setHeader("content-type", "application/json");
      if (!info.active) {
        res.statusCode = 401;
        res.end(JSON.stringify({ error: "invalid_token" }));
        return;
      }
      res.end(JSON.stringify({ user: info.sub, scope: info.scope }));
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/me`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function authCodeConfig(provider: OAuthTestProvider): AuthConfig {
  return {
    authScheme: {
      type: "oauth2",
      flows: {
        authorizationCode: {
          authorizationUrl: provider.authorizationEndpoint,
          tokenUrl: provider.tokenEndpoint,
          scopes: { openid: "sign in", "api.read": "read the API" },
        },
      },
    },
    rawAuthCredential: {
      authType: "oauth2",
      oauth2: { clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri: REDIRECT_URI },
    },
  };
}

/**
 * A tool that calls the protected API for the user: asks for a credential when it has none, and
 * forgets a token the API refuses (revoked) and asks again.
 */
export function profileTool(authConfig: AuthConfig, apiUrl: string): BaseTool {
  return new FunctionTool({
    name: "get_profile",
    description: "Reads the user's profile from the API.",
    parameters: z.object({}),
    execute: async (_args, context) => {
      const credential = await context.getCredential(authConfig);
      if (!credential?.oauth2?.accessToken) {
        context.requestCredential(authConfig);
        return { status: "waiting for the user to authorize" };
      }
      const response = await fetch(apiUrl, { headers: { authorization: `Bearer ${credential.oauth2.accessToken}` } });
      if (response.status === 401) {
        await context.deleteCredential(authConfig);
        context.requestCredential(authConfig);
        return { status: "token refused; waiting for the user to authorize again" };
      }
      return (await response.json()) as Record<string, unknown>;
    },
  });
}

/** A runner whose model calls `get_profile` once per turn and then answers with the tool's result. */
export class ProfileApp {
  readonly sessionService = new InMemorySessionService();
  readonly model = new ScriptedModel({ steps: [] });
  readonly runner: Runner;

  constructor(tool: BaseTool, credentialService?: BaseCredentialService) {
    const agent = new LlmAgent({ name: "assistant", model: this.model, tools: [tool] });
    this.runner = new Runner({ appName: "app", agent, sessionService: this.sessionService, credentialService });
  }

  async session(userId: string): Promise<string> {
    return (await this.sessionService.createSession({ appName: "app", userId })).id;
  }

  async run(userId: string, sessionId: string, message: Content): Promise<Event[]> {
    const events: Event[] = [];
    for await (const event of this.runner.runAsync({ userId, sessionId, newMessage: message })) events.push(event);
    return events;
  }

  /** Scripts one model turn: a get_profile call, then (if the tool answers) a text answer echoing it. */
  scriptCall(): void {
    this.model.push(ScriptedModel.functionCall("get_profile", {}));
  }

  scriptAnswer(): void {
    this.model.push((request) => {
      const last = request.contents.at(-1)?.parts?.at(-1)?.functionResponse?.response;
      return ScriptedModel.text(`profile: ${JSON.stringify(last)}`);
    });
  }
}

export function credentialRequest(events: Event[]): FunctionCall {
  const call = events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME);
  if (!call) throw new Error(`no credential request among ${events.length} events`);
  return call;
}

/** The client's answer (what ADK's dev UI sends): the request's authConfig with the redirect URL filled in. */
export function authAnswer(request: FunctionCall, authResponseUri: string, redirectUri = REDIRECT_URI): Content {
  const authConfig = structuredClone((request.args as { authConfig: AuthConfig }).authConfig);
  const oauth2 = authConfig.exchangedAuthCredential!.oauth2!;
  oauth2.authResponseUri = authResponseUri;
  oauth2.redirectUri = redirectUri;
  return {
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
  };
}

export { startOAuthProvider, type OAuthTestProvider };
