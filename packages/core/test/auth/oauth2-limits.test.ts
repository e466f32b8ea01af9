import { getEventListeners } from "node:events";
import { afterEach, describe, expect, it } from "@jest/globals";
import {
  startLargeBodyServer,
  startSilentServer,
  type LargeBodyServerOptions,
} from "@agentkit/test-support/http-body-servers";
import {
  ConfigurationError,
  CredentialError,
  discoverOpenIdConfig,
  OAuth2CredentialExchanger,
  OAuth2CredentialRefresher,
  type AuthCredential,
  type AuthScheme,
} from "../../src/index.js";

const SECRET = "client-secret-never-in-messages";
const REFRESH = "refresh-token-never-in-messages";
const MiB = 1024 * 1024;

const clientCredentials = (tokenUrl: string): AuthScheme => ({
  type: "oauth2",
  flows: { clientCredentials: { tokenUrl, scopes: { read: "read" } } },
});
const client: AuthCredential = { authType: "oauth2", oauth2: { clientId: "app", clientSecret: SECRET } };

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function silent() {
  const server = await startSilentServer();
  running.push(server);
  return server;
}

async function large(options: LargeBodyServerOptions) {
  const server = await startLargeBodyServer(options);
  running.push(server);
  return server;
}

function expectCredentialError(error: unknown, code: string, message: string): void {
  expect(error).toBeInstanceOf(CredentialError);
  expect((error as CredentialError).code).toBe(code);
  expect((error as Error).message).toBe(message);
  expect((error as Error).message).not.toContain(SECRET);
  expect((error as Error).message).not.toContain(REFRESH);
}

describe("OAuth2 token requests and discovery are bounded in time (timeoutMs)", () => {
  it("a token endpoint that never answers fails the exchange, leaving no listener on the caller's signal", async () => {
    const server = await silent();
    const caller = new AbortController();
    const exchanger = new OAuth2CredentialExchanger({ timeoutMs: 100 });
    const error = await exchanger
      .exchange({ authScheme: clientCredentials(`${server.url}/token`), credential: client, signal: caller.signal })
      .catch((e: unknown) => e);
    expectCredentialError(
      error,
      "CREDENTIAL_EXCHANGE_FAILED",
      `Token endpoint ${server.url}/token did not answer within 100 ms.`,
    );
    expect(getEventListeners(caller.signal, "abort")).toHaveLength(0);
  });

  it("a refresh against a token endpoint that never answers fails with CREDENTIAL_REFRESH_FAILED", async () => {
    const server = await silent();
    const refresher = new OAuth2CredentialRefresher({ timeoutMs: 100 });
    const credential: AuthCredential = {
      authType: "oauth2",
      oauth2: { clientId: "app", clientSecret: SECRET, accessToken: "old", refreshToken: REFRESH, expiresAt: 1 },
    };
    const error = await refresher
      .refresh({ authScheme: clientCredentials(`${server.url}/token`), credential })
      .catch((e: unknown) => e);
    expectCredentialError(
      error,
      "CREDENTIAL_REFRESH_FAILED",
      `Token endpoint ${server.url}/token did not answer within 100 ms.`,
    );
  });

  it("a discovery URL that never answers fails with AUTH_DISCOVERY_FAILED", async () => {
    const server = await silent();
    const openIdConnectUrl = `${server.url}/.well-known/openid-configuration`;
    const exchanger = new OAuth2CredentialExchanger({ timeoutMs: 100 });
    const error = await exchanger
      .exchange({ authScheme: { type: "openIdConnect", openIdConnectUrl }, credential: client })
      .catch((e: unknown) => e);
    expectCredentialError(
      error,
      "AUTH_DISCOVERY_FAILED",
      `OpenID Connect discovery at ${openIdConnectUrl} failed: no answer within 100 ms.`,
    );
  });

  it("refuses a timeoutMs that is not a positive number of milliseconds", () => {
    expect(() => new OAuth2CredentialExchanger({ timeoutMs: 0 })).toThrow(ConfigurationError);
    expect(() => new OAuth2CredentialRefresher({ timeoutMs: Number.NaN })).toThrow(/timeoutMs/);
  });
});

describe.each([
  ["chunked", false],
  ["with Content-Length", true],
])("OAuth2 answers over 1 MiB (%s)", (_, contentLength) => {
  it("a token response is refused and cancelled, not read to the end", async () => {
    const server = await large({
      prefix: '{"access_token":"tok","pad":"',
      fillBytes: 32 * MiB,
      suffix: '"}',
      contentLength,
    });
    const error = await new OAuth2CredentialExchanger()
      .exchange({ authScheme: clientCredentials(`${server.url}/token`), credential: client })
      .catch((e: unknown) => e);
    expectCredentialError(
      error,
      "CREDENTIAL_EXCHANGE_FAILED",
      `Token endpoint ${server.url}/token answered more than ${MiB} bytes.`,
    );
    expect(await server.lastAnswer()).toBe("closed early");
  });

  it("a discovery document is refused and cancelled, not read to the end", async () => {
    const server = await large({
      prefix: '{"authorization_endpoint":"https://idp/auth","token_endpoint":"https://idp/token","pad":"',
      fillBytes: 32 * MiB,
      suffix: '"}',
      contentLength,
    });
    const url = `${server.url}/.well-known/openid-configuration`;
    const error = await discoverOpenIdConfig(url).catch((e: unknown) => e);
    expectCredentialError(
      error,
      "AUTH_DISCOVERY_FAILED",
      `OpenID Connect discovery at ${url} failed: the document exceeded ${MiB} bytes.`,
    );
    expect(await server.lastAnswer()).toBe("closed early");
  });
});
