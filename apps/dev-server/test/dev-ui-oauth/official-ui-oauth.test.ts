import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { chromium, type Browser, type Page } from "playwright-core";
import { startOAuthProvider, type OAuthTestProvider } from "@agentkit/test-support/oauth-provider";
import { startDevServer, type RunningDevServer } from "../../src/start-dev-server.js";
import { CHROMIUM_ARGS, seeText } from "../dev-ui/harness.js";
import { adkDevUiDir } from "../dev-ui-official/official-ui-harness.js";
import { freePort, makeOAuthAgents, startOAuthMcpServer, startProtectedApi, type Recorder } from "./oauth-fixtures.js";

/**
 * ADK's own compiled dev UI (@google/adk-devtools) handles `adk_request_credential` itself: it
 * opens the authorization URL in a popup with `redirect_uri` set to the page it runs on
 * (`/dev-ui/`; a redirect to the bare origin works too: the server keeps the query when it
 * redirects `/` to `/dev-ui/`), the UI page in the popup posts the URL to its opener and the
 * opener answers. This runs that against
 * agentkit's dev server and a real OpenID provider.
 */
const TIMEOUT = 120_000;
let provider: OAuthTestProvider;
let api: Recorder;
let mcp: Recorder;
let agents: { dir: string; cleanup(): Promise<void> };
let data: string;
let server: RunningDevServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  // ADK's UI replaces the request's redirect_uri with the page it runs on (`/dev-ui/`).
  provider = await startOAuthProvider({ redirectUris: [origin, `${origin}/`, `${origin}/dev-ui/`] });
  api = await startProtectedApi(provider);
  mcp = await startOAuthMcpServer(provider);
  agents = await makeOAuthAgents({
    authorizationEndpoint: provider.authorizationEndpoint,
    tokenEndpoint: provider.tokenEndpoint,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    apiUrl: api.url,
    mcpUrl: mcp.url,
    redirectUri: origin,
  });
  data = await mkdtemp(join(tmpdir(), "agentkit-official-oauth-"));
  server = await startDevServer({
    mode: "web",
    agentsDir: agents.dir,
    host: "127.0.0.1",
    port,
    reload: false,
    allowOrigins: [],
    sessionServiceUri: `sqlite://${join(data, "sessions.db")}`,
    artifactServiceUri: `file://${join(data, "artifacts")}`,
    logLevel: "error",
    log: new Writable({ write: (_c, _e, done) => done() }),
    devUiDir: adkDevUiDir(),
  });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1400, height: 860 } });
  // No internet here: the UI's Google Fonts are blocked on purpose.
  await context.route(/^https:\/\/fonts\.(googleapis|gstatic)\.com\//, (route) => route.abort("blockedbyclient"));
  page = await context.newPage();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await mcp?.close();
  await api?.close();
  await provider?.close();
  await agents?.cleanup();
  if (data) await rm(data, { recursive: true, force: true });
}, TIMEOUT);

describe("ADK's official dev UI and OAuth", () => {
  it(
    "opens the authorization popup, receives the redirect on the origin, answers, and the run continues",
    async () => {
      await page.goto(`${server.url}/dev-ui/?app=oauth_agent&userId=user`);
      const box = page.getByPlaceholder("Type a message...");
      await box.waitFor();
      await box.fill("who am I?");
      const [popup] = await Promise.all([page.waitForEvent("popup", { timeout: 0 }), box.press("Enter")]);
      await seeText(page.locator("body"), "Signed in as alice.");
      expect(popup.isClosed()).toBe(true);
      expect(api.subjects).toEqual(["alice"]);
    },
    TIMEOUT,
  );
});
