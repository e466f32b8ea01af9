import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import {
  getFunctionCalls,
  getFunctionResponses,
  InMemoryCredentialService,
  InvalidUserMessageError,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  type AuthConfig,
  type Content,
  type Event,
} from "../../src/index.js";
import {
  authAnswer,
  authCodeConfig,
  credentialRequest,
  ProfileApp,
  profileTool,
  startOAuthProvider,
  startProtectedApi,
  type OAuthTestProvider,
} from "./oauth-fixture.js";

let provider: OAuthTestProvider;
let api: { url: string; close(): Promise<void> };

beforeAll(async () => {
  provider = await startOAuthProvider();
  api = await startProtectedApi(provider);
});

afterAll(async () => {
  await api?.close();
  await provider?.close();
});

const hello: Content = { role: "user", parts: [{ text: "who am I?" }] };

/** Runs a turn that needs authorization and completes it as `account`; returns the second run's events. */
async function authorizeTurn(app: ProfileApp, userId: string, sessionId: string, account: string): Promise<Event[]> {
  app.scriptCall();
  const first = await app.run(userId, sessionId, hello);
  const request = credentialRequest(first);
  const redirect = await provider.authorize(authUriOf(request), account);
  app.scriptAnswer();
  return app.run(userId, sessionId, authAnswer(request, redirect));
}

function authUriOf(request: { args?: Record<string, unknown> }): string {
  return (request.args as { authConfig: AuthConfig }).authConfig.exchangedAuthCredential!.oauth2!.authUri!;
}

function finalText(events: Event[]): string {
  return events.at(-1)?.content?.parts?.[0]?.text ?? "";
}

async function storedEvents(app: ProfileApp, userId: string, sessionId: string): Promise<string> {
  const session = await app.sessionService.getSession({ appName: "app", userId, sessionId });
  return JSON.stringify(session!.events);
}

describe("authorization code with PKCE through the flow", () => {
  it("asks for consent, exchanges the code, stores the token and re-runs the call", async () => {
    const credentials = new InMemoryCredentialService();
    const config = authCodeConfig(provider);
    const app = new ProfileApp(profileTool(config, api.url), credentials);
    const session = await app.session("u1");

    app.scriptCall();
    const first = await app.run("u1", session, hello);
    // model call, the tool's interim response, the credential request: the turn ends there.
    expect(first).toHaveLength(3);
    const originalId = getFunctionCalls(first[0]!)[0]!.id!;
    const request = credentialRequest(first);
    expect(first[2]!.longRunningToolIds).toEqual([request.id]);
    expect(request.args!.functionCallId).toBe(originalId);
    expect(Object.keys(first[2]!.actions.requestedAuthConfigs)).toEqual([originalId]);
    const authUri = new URL(authUriOf(request));
    expect(authUri.origin + authUri.pathname).toBe(provider.authorizationEndpoint);
    expect(authUri.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUri.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
    expect(authUri.searchParams.get("state")).toMatch(/^[\w-]{43}$/);
    expect(authUri.searchParams.get("client_id")).toBe(provider.clientId);
    // What the client sees carries no client secret and no PKCE verifier.
    expect(JSON.stringify(first)).not.toContain(provider.clientSecret);
    expect(JSON.stringify(first)).not.toContain("codeVerifier");

    const redirect = await provider.authorize(authUri.toString(), "alice");
    app.scriptAnswer();
    const second = await app.run("u1", session, authAnswer(request, redirect));
    const rerun = getFunctionResponses(second[0]!);
    expect(rerun).toEqual([
      { id: originalId, name: "get_profile", response: { user: "alice", scope: "openid api.read" } },
    ]);
    expect(finalText(second)).toContain('"user":"alice"');

    // The token is stored for this user; the next call uses it without asking.
    app.scriptCall();
    app.scriptAnswer();
    const third = await app.run("u1", session, hello);
    expect(third.some((e) => getFunctionCalls(e).some((c) => c.name === REQUEST_CREDENTIAL_FUNCTION_CALL_NAME))).toBe(
      false,
    );
    expect(finalText(third)).toContain('"user":"alice"');

    // No token or secret reached a stored event.
    const stored = await credentials.loadCredential(config, contextFor("u1"));
    expect(stored?.oauth2?.accessToken).toBeTruthy();
    expect(stored?.oauth2?.refreshToken).toBeTruthy();
    expect(stored?.oauth2?.clientSecret).toBeUndefined();
    const events = await storedEvents(app, "u1", session);
    expect(events).not.toContain(stored!.oauth2!.accessToken!);
    expect(events).not.toContain(stored!.oauth2!.refreshToken!);
    expect(events).not.toContain(provider.clientSecret);
    app.model.assertConsumed();
  });

  it("keeps users apart: one user's token is never used for another", async () => {
    const app = new ProfileApp(profileTool(authCodeConfig(provider), api.url));
    const alice = await app.session("alice-id");
    const bob = await app.session("bob-id");
    expect(finalText(await authorizeTurn(app, "alice-id", alice, "alice"))).toContain('"user":"alice"');

    // Bob has no credential yet: he is asked, even though Alice authorized the same tool.
    app.scriptCall();
    const bobFirst = await app.run("bob-id", bob, hello);
    expect(() => credentialRequest(bobFirst)).not.toThrow();
    const redirect = await provider.authorize(authUriOf(credentialRequest(bobFirst)), "bob");
    app.scriptAnswer();
    expect(finalText(await app.run("bob-id", bob, authAnswer(credentialRequest(bobFirst), redirect)))).toContain(
      '"user":"bob"',
    );

    // Each keeps their own.
    app.scriptCall();
    app.scriptAnswer();
    expect(finalText(await app.run("alice-id", alice, hello))).toContain('"user":"alice"');
    app.scriptCall();
    app.scriptAnswer();
    expect(finalText(await app.run("bob-id", bob, hello))).toContain('"user":"bob"');
  });

  it("refuses an authorization response whose state is not the request's, and stores nothing", async () => {
    const credentials = new InMemoryCredentialService();
    const config = authCodeConfig(provider);
    const app = new ProfileApp(profileTool(config, api.url), credentials);
    const session = await app.session("u2");
    app.scriptCall();
    const request = credentialRequest(await app.run("u2", session, hello));
    const redirect = new URL(await provider.authorize(authUriOf(request), "mallory"));
    redirect.searchParams.set("state", "forged-state");
    app.scriptAnswer();
    const second = await app.run("u2", session, authAnswer(request, redirect.toString()));
    const response = getFunctionResponses(second[0]!)[0]!.response as { error: string };
    expect(response.error).toContain("AUTH_STATE_MISMATCH");
    expect(await credentials.loadCredential(config, contextFor("u2"))).toBeUndefined();
  });

  it("does not accept an answer twice, nor a code that was already redeemed", async () => {
    const app = new ProfileApp(profileTool(authCodeConfig(provider), api.url));
    const session = await app.session("u3");
    app.scriptCall();
    const request = credentialRequest(await app.run("u3", session, hello));
    const redirect = await provider.authorize(authUriOf(request), "carol");
    app.scriptAnswer();
    await app.run("u3", session, authAnswer(request, redirect));

    // The same answer again: the request was answered, the runner refuses before anything runs.
    await expect(app.run("u3", session, authAnswer(request, redirect))).rejects.toBeInstanceOf(InvalidUserMessageError);

    // Another user's fresh request answered with the old code (its state made to match, as an
    // attacker who stole the redirect URL would): the provider refuses the replayed code.
    const other = await app.session("u3-attacker");
    app.scriptCall();
    const second = credentialRequest(await app.run("u3-attacker", other, hello));
    const replay = new URL(redirect);
    replay.searchParams.set("state", new URL(authUriOf(second)).searchParams.get("state")!);
    app.scriptAnswer();
    const events = await app.run("u3-attacker", other, authAnswer(second, replay.toString()));
    const response = getFunctionResponses(events[0]!)[0]!.response as { error: string };
    expect(response.error).toContain("CREDENTIAL_EXCHANGE_FAILED");
    expect(response.error).toContain("invalid_grant");
  });

  it("refuses an answer to a credential request the flow never recorded", async () => {
    const app = new ProfileApp(profileTool(authCodeConfig(provider), api.url));
    const session = await app.session("u4");
    app.scriptCall();
    const request = credentialRequest(await app.run("u4", session, hello));
    const forged = authAnswer({ ...request, id: "adk-forged" }, "http://127.0.0.1/callback?code=x&state=y");
    await expect(app.run("u4", session, forged)).rejects.toThrow(/never made/);
  });
});

describe("expiry, refresh and revocation", () => {
  it("refreshes an expired token before use", async () => {
    const credentials = new InMemoryCredentialService();
    const config = authCodeConfig(provider);
    const app = new ProfileApp(profileTool(config, api.url), credentials);
    const session = await app.session("r1");
    await authorizeTurn(app, "r1", session, "dave");
    const before = (await credentials.loadCredential(config, contextFor("r1")))!;
    await credentials.saveCredential(
      { ...config, exchangedAuthCredential: { ...before, oauth2: { ...before.oauth2, expiresAt: 1 } } },
      contextFor("r1"),
    );

    app.scriptCall();
    app.scriptAnswer();
    expect(finalText(await app.run("r1", session, hello))).toContain('"user":"dave"');
    const after = (await credentials.loadCredential(config, contextFor("r1")))!;
    expect(after.oauth2!.accessToken).not.toBe(before.oauth2!.accessToken);
    expect(after.oauth2!.expiresAt).toBeGreaterThan(Date.now() / 1000);
  });

  it("asks the user again when the refresh is refused (refresh token revoked)", async () => {
    const credentials = new InMemoryCredentialService();
    const config = authCodeConfig(provider);
    const app = new ProfileApp(profileTool(config, api.url), credentials);
    const session = await app.session("r2");
    await authorizeTurn(app, "r2", session, "erin");
    const stored = (await credentials.loadCredential(config, contextFor("r2")))!;
    await provider.revoke(stored.oauth2!.refreshToken!);
    await credentials.saveCredential(
      { ...config, exchangedAuthCredential: { ...stored, oauth2: { ...stored.oauth2, expiresAt: 1 } } },
      contextFor("r2"),
    );

    app.scriptCall();
    const events = await app.run("r2", session, hello);
    expect(() => credentialRequest(events)).not.toThrow();
    expect(await credentials.loadCredential(config, contextFor("r2"))).toBeUndefined();
  });

  it("asks again when the API refuses a revoked access token", async () => {
    const credentials = new InMemoryCredentialService();
    const config = authCodeConfig(provider);
    const app = new ProfileApp(profileTool(config, api.url), credentials);
    const session = await app.session("r3");
    await authorizeTurn(app, "r3", session, "frank");
    const stored = (await credentials.loadCredential(config, contextFor("r3")))!;
    await provider.revoke(stored.oauth2!.accessToken!);

    app.scriptCall();
    const events = await app.run("r3", session, hello);
    expect(() => credentialRequest(events)).not.toThrow();
    expect(finalText(await authorizeTurnAfter(app, "r3", session, events, "frank"))).toContain('"user":"frank"');
  });
});

async function authorizeTurnAfter(
  app: ProfileApp,
  userId: string,
  sessionId: string,
  events: Event[],
  account: string,
): Promise<Event[]> {
  const request = credentialRequest(events);
  const redirect = await provider.authorize(authUriOf(request), account);
  app.scriptAnswer();
  return app.run(userId, sessionId, authAnswer(request, redirect));
}

/** The app and user a credential service scopes by (what a tool context gives it). */
function contextFor(userId: string) {
  return { appName: "app", userId } as unknown as Parameters<InMemoryCredentialService["loadCredential"]>[1];
}
