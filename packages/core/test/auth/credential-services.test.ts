import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  CallbackContext,
  createEvent,
  CredentialCipher,
  CredentialStoreError,
  FunctionTool,
  getFunctionCalls,
  getFunctionResponses,
  InMemoryCredentialService,
  InMemorySessionService,
  InvalidUserMessageError,
  InvocationContext,
  LlmAgent,
  PluginManager,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  SessionStateCredentialService,
  StoredCredentialService,
  type AuthConfig,
  type CredentialScope,
  type CredentialStore,
} from "../../src/index.js";
import { checkIncomingMessage } from "../../src/internal.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  authAnswer,
  authCodeConfig,
  credentialRequest,
  ProfileApp,
  startOAuthProvider,
  type OAuthTestProvider,
} from "./oauth-fixture.js";

let provider: OAuthTestProvider;
beforeAll(async () => {
  provider = await startOAuthProvider();
});
afterAll(async () => {
  await provider?.close();
});

class MapStore implements CredentialStore {
  readonly rows = new Map<string, string>();
  key(s: CredentialScope) {
    return JSON.stringify([s.appName, s.userId, s.credentialKey]);
  }
  async get(s: CredentialScope) {
    return this.rows.get(this.key(s));
  }
  async put(s: CredentialScope, record: string) {
    this.rows.set(this.key(s), record);
  }
  async delete(s: CredentialScope) {
    this.rows.delete(this.key(s));
  }
}

async function contextFor(userId: string, sessionService = new InMemorySessionService()): Promise<CallbackContext> {
  const session = await sessionService.createSession({ appName: "app", userId });
  const agent = new LlmAgent({ name: "a", model: new ScriptedModel() });
  return new CallbackContext(
    new InvocationContext({ invocationId: "e-1", agent, session, sessionService, pluginManager: new PluginManager() }),
  );
}

const apiKeyConfig: AuthConfig = {
  authScheme: { type: "apiKey", name: "x-api-key", in: "header" },
  credentialKey: "weather",
  exchangedAuthCredential: { authType: "apiKey", apiKey: "planted-secret-0123456789" },
};

describe("StoredCredentialService (a persistent store)", () => {
  it("refuses to start without an encryption key", () => {
    expect(() => new StoredCredentialService({ store: new MapStore(), cipher: CredentialCipher.fromEnv({}) })).toThrow(
      CredentialStoreError,
    );
    expect(() => CredentialCipher.fromEnv({ AGENTKIT_CREDENTIAL_KEY: "too-short" })).toThrow(/32 bytes/);
  });

  it("stores only ciphertext, bound to its app, user and key", async () => {
    const store = new MapStore();
    const service = new StoredCredentialService({
      store,
      cipher: new CredentialCipher([CredentialCipher.generateKey()]),
    });
    const alice = await contextFor("alice");
    await service.saveCredential(apiKeyConfig, alice);
    const [row] = [...store.rows.values()];
    expect(row).not.toContain("planted-secret");
    expect((await service.loadCredential(apiKeyConfig, alice))?.apiKey).toBe("planted-secret-0123456789");

    // Alice's row copied under Bob's key does not decrypt, and Bob has nothing of his own.
    const bob = await contextFor("bob");
    expect(await service.loadCredential(apiKeyConfig, bob)).toBeUndefined();
    store.rows.set(JSON.stringify(["app", "bob", "weather"]), row!);
    await expect(service.loadCredential(apiKeyConfig, bob)).rejects.toMatchObject({
      code: "CREDENTIAL_DECRYPT_FAILED",
    });

    await service.deleteCredential(apiKeyConfig, alice);
    expect(await service.loadCredential(apiKeyConfig, alice)).toBeUndefined();
  });

  it("rotates keys: old records still read, and are rewritten with the new key", async () => {
    const store = new MapStore();
    const oldKey = CredentialCipher.generateKey();
    const newKey = CredentialCipher.generateKey();
    const ctx = await contextFor("alice");
    await new StoredCredentialService({ store, cipher: new CredentialCipher([oldKey]) }).saveCredential(
      apiKeyConfig,
      ctx,
    );
    const before = [...store.rows.values()][0]!;

    // Without the old key the record cannot be read; with it listed as old, it can.
    await expect(
      new StoredCredentialService({ store, cipher: new CredentialCipher([newKey]) }).loadCredential(apiKeyConfig, ctx),
    ).rejects.toMatchObject({ code: "CREDENTIAL_DECRYPT_FAILED" });
    const rotated = new StoredCredentialService({
      store,
      cipher: CredentialCipher.fromEnv({ AGENTKIT_CREDENTIAL_KEY: newKey, AGENTKIT_CREDENTIAL_OLD_KEYS: oldKey }),
    });
    expect((await rotated.loadCredential(apiKeyConfig, ctx))?.apiKey).toBe("planted-secret-0123456789");
    const after = [...store.rows.values()][0]!;
    expect(after).not.toBe(before);
    expect(
      (
        await new StoredCredentialService({ store, cipher: new CredentialCipher([newKey]) }).loadCredential(
          apiKeyConfig,
          ctx,
        )
      )?.apiKey,
    ).toBe("planted-secret-0123456789");
  });
});

describe("SessionStateCredentialService", () => {
  it("needs a cipher, and writes only ciphertext into the state delta", async () => {
    expect(() => new SessionStateCredentialService({} as never)).toThrow(/cipher/);
    const service = new SessionStateCredentialService({
      cipher: new CredentialCipher([CredentialCipher.generateKey()]),
    });
    const ctx = await contextFor("alice");
    await service.saveCredential(apiKeyConfig, ctx);
    expect(JSON.stringify(ctx.actions.stateDelta)).not.toContain("planted-secret");
    expect(Object.keys(ctx.actions.stateDelta)).toEqual(["_agentkit_credential:weather"]);
    expect((await service.loadCredential(apiKeyConfig, ctx))?.apiKey).toBe("planted-secret-0123456789");
  });

  it("carries a whole authorization-code flow through session state", async () => {
    const cipher = new CredentialCipher([CredentialCipher.generateKey()]);
    const config = authCodeConfig(provider);
    let token: string | undefined;
    const tool = new FunctionTool({
      name: "get_profile",
      description: "d",
      parameters: z.object({}),
      execute: async (_a, context) => {
        const credential = await context.getCredential(config);
        if (!credential) {
          context.requestCredential(config);
          return { status: "pending" };
        }
        token = credential.oauth2!.accessToken;
        return { ok: true };
      },
    });
    const app = new ProfileApp(tool, new SessionStateCredentialService({ cipher }));
    const session = await app.session("s1");
    app.scriptCall();
    const request = credentialRequest(await app.run("s1", session, { role: "user", parts: [{ text: "hi" }] }));
    const redirect = await provider.authorize(
      (request.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!,
    );
    app.scriptAnswer();
    await app.run("s1", session, authAnswer(request, redirect));
    expect(token).toBeTruthy();
    const stored = await app.sessionService.getSession({ appName: "app", userId: "s1", sessionId: session });
    expect(JSON.stringify(stored)).not.toContain(token!);
    expect(Object.keys(stored!.state).some((k) => k.startsWith("_agentkit_credential:"))).toBe(true);
  });
});

describe("credentials that need no user", () => {
  it("client credentials: a token is fetched, stored and reused", async () => {
    const config: AuthConfig = {
      authScheme: {
        type: "oauth2",
        flows: { clientCredentials: { tokenUrl: provider.tokenEndpoint, scopes: { "api.read": "" } } },
      },
      rawAuthCredential: {
        authType: "oauth2",
        oauth2: { clientId: provider.clientId, clientSecret: provider.clientSecret },
      },
    };
    const credentials = new InMemoryCredentialService();
    const seen: string[] = [];
    const tool = new FunctionTool({
      name: "get_profile",
      description: "d",
      parameters: z.object({}),
      execute: async (_a, context) => {
        const credential = await context.getCredential(config);
        seen.push(credential!.oauth2!.accessToken!);
        return { active: (await provider.introspect(credential!.oauth2!.accessToken!)).active };
      },
    });
    const app = new ProfileApp(tool, credentials);
    const session = await app.session("m1");
    for (let i = 0; i < 2; i++) {
      app.scriptCall();
      app.scriptAnswer();
      const events = await app.run("m1", session, { role: "user", parts: [{ text: "go" }] });
      expect(events.at(-1)!.content!.parts![0]!.text).toContain('"active":true');
    }
    expect(seen[0]).toBe(seen[1]);
  });

  it("OpenID Connect: endpoints come from discovery", async () => {
    const config: AuthConfig = {
      authScheme: { type: "openIdConnect", openIdConnectUrl: provider.discoveryUrl },
      rawAuthCredential: {
        authType: "openIdConnect",
        oauth2: {
          clientId: provider.clientId,
          clientSecret: provider.clientSecret,
          redirectUri: "http://127.0.0.1/callback",
        },
      },
    };
    let idToken: string | undefined;
    const tool = new FunctionTool({
      name: "get_profile",
      description: "d",
      parameters: z.object({}),
      execute: async (_a, context) => {
        const credential = await context.getCredential(config);
        if (!credential) {
          context.requestCredential(config);
          return { status: "pending" };
        }
        idToken = credential.oauth2!.idToken;
        return { ok: true };
      },
    });
    const app = new ProfileApp(tool);
    const session = await app.session("o1");
    app.scriptCall();
    const request = credentialRequest(await app.run("o1", session, { role: "user", parts: [{ text: "hi" }] }));
    const authUri = (request.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!;
    expect(authUri.startsWith(`${provider.issuer}/auth?`)).toBe(true);
    expect(new URL(authUri).searchParams.get("scope")).toBe("openid");
    app.scriptAnswer();
    await app.run("o1", session, authAnswer(request, await provider.authorize(authUri, "grace")));
    const claims = JSON.parse(Buffer.from(idToken!.split(".")[1]!, "base64url").toString()) as { sub: string };
    expect(claims.sub).toBe("grace");
  });
});

describe("only the flow's own credential requests are answerable", () => {
  it("refuses an answer to an agent's adk_request_credential call that carries no flow record", () => {
    const request = createEvent({
      author: "assistant",
      invocationId: "e-1",
      content: {
        role: "user",
        parts: [
          {
            functionCall: {
              id: "req-1",
              name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
              args: { functionCallId: "orig-1", authConfig: {} },
            },
          },
        ],
      },
      longRunningToolIds: ["req-1"],
    });
    const answer = {
      role: "user",
      parts: [{ functionResponse: { id: "req-1", name: REQUEST_CREDENTIAL_FUNCTION_CALL_NAME, response: {} } }],
    };
    expect(() => checkIncomingMessage(answer, [request])).toThrow(InvalidUserMessageError);
    expect(() => checkIncomingMessage(answer, [request])).toThrow(/did not record/);
    const recorded = { ...request, actions: { ...request.actions, requestedAuthConfigs: { "orig-1": {} } } };
    expect(checkIncomingMessage(answer, [recorded])).toEqual(answer);
  });
});

describe("a request the user cannot be asked for", () => {
  it("answers the call with an error instead of failing the run (OIDC discovery unreachable)", async () => {
    const config: AuthConfig = {
      authScheme: { type: "openIdConnect", openIdConnectUrl: "http://127.0.0.1:1/.well-known/openid-configuration" },
      rawAuthCredential: { authType: "openIdConnect", oauth2: { clientId: "c" } },
    };
    const tool = new FunctionTool({
      name: "get_profile",
      description: "d",
      parameters: z.object({}),
      execute: async (_a, context) => {
        context.requestCredential(config);
        return { status: "pending" };
      },
    });
    const app = new ProfileApp(tool);
    const session = await app.session("d1");
    app.scriptCall();
    app.scriptAnswer();
    const events = await app.run("d1", session, { role: "user", parts: [{ text: "hi" }] });
    const response = events.flatMap(getFunctionResponses)[0]!.response as { error: string };
    expect(response.error).toContain("AUTH_DISCOVERY_FAILED");
    expect(events.some((e) => getFunctionCalls(e).some((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME))).toBe(
      false,
    );
  });
});
