import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { chromium, type Browser, type Page } from "playwright-core";
import { CredentialCipher, StoredCredentialService, withCredentialKey, type AuthConfig } from "@agentkit/core";
import { SqliteCredentialStore } from "@agentkit/sessions/sqlite";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { startDevServer, type RunningDevServer } from "../../src/start-dev-server.js";
import { CHROMIUM_ARGS, SCREENSHOTS, seeText, until } from "../dev-ui/harness.js";
import { freePort, makeOAuthAgents, startOAuthMcpServer, startProtectedApi, type Recorder } from "./oauth-fixtures.js";

/**
 * The dev UI's consent card in Chromium, against the real dev server and a real OpenID provider
 * (oidc-provider): a tool that calls an API for the user, and an MCP server that requires OAuth.
 * The popup goes to the provider, comes back on the server's callback route, and the run goes
 * on. Afterwards no token may be found in the session's events, the traces, the server's log,
 * the page or the session database file (credentials are stored encrypted).
 */
const TIMEOUT = 120_000;
const KEY = CredentialCipher.generateKey();
let provider: OAuthTestProvider;
let api: Recorder;
let mcp: Recorder;
let agents: { dir: string; cleanup(): Promise<void> };
let data: string;
let server: RunningDevServer;
let browser: Browser;
let page: Page;
let log = "";
let redirectUri = "";
const previousKey = process.env.AGENTKIT_CREDENTIAL_KEY;

beforeAll(async () => {
  const port = await freePort();
  redirectUri = `http://127.0.0.1:${port}/dev-ui/oauth/callback`;
  provider = await startOAuthProvider({
    redirectUris: [redirectUri],
    registration: true,
    resourcesFrom: () => [mcp.url],
  });
  api = await startProtectedApi(provider);
  mcp = await startOAuthMcpServer(provider);
  agents = await makeOAuthAgents({
    authorizationEndpoint: provider.authorizationEndpoint,
    tokenEndpoint: provider.tokenEndpoint,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    apiUrl: api.url,
    mcpUrl: mcp.url,
    redirectUri,
  });
  data = await mkdtemp(join(tmpdir(), "agentkit-dev-ui-oauth-data-"));
  process.env.AGENTKIT_CREDENTIAL_KEY = KEY;
  server = await startDevServer({
    mode: "web",
    agentsDir: agents.dir,
    host: "127.0.0.1",
    port,
    reload: false,
    allowOrigins: [],
    sessionServiceUri: `sqlite://${join(data, "sessions.db")}`,
    artifactServiceUri: `file://${join(data, "artifacts")}`,
    logLevel: "debug",
    log: new Writable({
      write: (chunk, _enc, done) => {
        log += String(chunk);
        done();
      },
    }),
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: { width: 1400, height: 860 } })).newPage();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mcp?.close();
  await api?.close();
  await provider?.close();
  await agents?.cleanup();
  if (data) await rm(data, { recursive: true, force: true });
  if (previousKey === undefined) delete process.env.AGENTKIT_CREDENTIAL_KEY;
  else process.env.AGENTKIT_CREDENTIAL_KEY = previousKey;
}, TIMEOUT);

async function chatAndAuthorize(app: string, text: string): Promise<string> {
  await page.goto(`${server.url}/dev-ui/?app=${app}&userId=e2e`);
  await page.getByRole("heading", { name: "New chat" }).waitFor();
  const box = page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
  const card = page.getByRole("region", { name: "Authorization requested" });
  await card.waitFor({ timeout: 30_000 });
  await page.screenshot({ path: join(SCREENSHOTS, `oauth-${app}-consent.png`) });
  // The popup runs the provider's login and consent and lands on the dev server's callback route.
  const [popup] = await Promise.all([
    page.waitForEvent("popup"),
    card.getByRole("button", { name: "Authorize" }).click(),
  ]);
  // The popup closes itself once it posted the redirect back (it may be gone before we look).
  await until(async () => (await card.count()) === 0, Boolean, "the consent card to go away", 45_000).catch(
    async (error: unknown) => {
      const where = popup.isClosed() ? "closed" : `${popup.url()}: ${(await popup.content()).slice(0, 500)}`;
      throw new Error(`The authorization did not come back (popup ${where})`, { cause: error });
    },
  );
  await until(async () => popup.isClosed(), Boolean, "the popup to close itself");
  return new URL(page.url()).searchParams.get("session")!;
}

/** Everything a user or operator can see: stored events, traces, the server log, the page, the database file. */
async function visibleEverywhere(app: string, sessionId: string): Promise<string> {
  const session = await (await fetch(`${server.url}/apps/${app}/users/e2e/sessions/${sessionId}`)).text();
  const traces = await (await fetch(`${server.url}/debug/trace/session/${sessionId}`)).text();
  const db = ["sessions.db", "sessions.db-wal"]
    .map((f) => {
      try {
        return readFileSync(join(data, f)).toString("latin1");
      } catch {
        return "";
      }
    })
    .join("");
  return [session, traces, log, await page.content(), db].join("\n");
}

describe("OAuth consent in the dev UI (Chromium)", () => {
  it(
    "authorizes a tool's API call in a popup and continues the run; no token is shown or stored in the clear",
    async () => {
      const sessionId = await chatAndAuthorize("oauth_agent", "who am I?");
      await seeText(page.locator('article.message[data-author="oauth_agent"]').last(), "Signed in as alice.");
      await page.screenshot({ path: join(SCREENSHOTS, "oauth-oauth_agent-done.png") });
      expect(api.subjects).toEqual(["alice"]);

      // The stored credential (encrypted in the session database) holds the tokens to look for.
      const config: AuthConfig = {
        authScheme: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: provider.authorizationEndpoint,
              tokenUrl: provider.tokenEndpoint,
              scopes: { openid: "sign in", "api.read": "read the profile" },
            },
          },
        },
        rawAuthCredential: { authType: "oauth2", oauth2: { clientId: provider.clientId } },
      };
      const store = new SqliteCredentialStore({ path: join(data, "sessions.db") });
      const credentials = new StoredCredentialService({ store, cipher: new CredentialCipher([KEY]) });
      const stored = await credentials.loadCredential(withCredentialKey(config), {
        appName: "oauth_agent",
        userId: "e2e",
      } as never);
      await credentials.close();
      const { accessToken, refreshToken } = stored!.oauth2!;
      expect(accessToken).toBe(api.tokens.at(-1));
      expect(refreshToken).toBeTruthy();
      const everything = await visibleEverywhere("oauth_agent", sessionId);
      expect(everything).toContain("Signed in as alice.");
      for (const secret of [accessToken!, refreshToken!, provider.clientSecret])
        expect(everything).not.toContain(secret);
    },
    TIMEOUT,
  );

  it(
    "authorizes an MCP server that requires OAuth, then calls its tool with the user's token",
    async () => {
      const sessionId = await chatAndAuthorize("mcp_agent", "what is on my calendar?");
      await seeText(page.locator('article.message[data-author="mcp_agent"]').last(), "Events: standup.");
      expect(mcp.subjects.at(-1)).toBe("alice");
      const everything = await visibleEverywhere("mcp_agent", sessionId);
      const tokens = [...new Set(mcp.tokens)];
      expect(tokens.length).toBeGreaterThan(0);
      for (const token of tokens) expect(everything).not.toContain(token);
    },
    TIMEOUT,
  );
});
