import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { Writable } from "node:stream";
import { chromium, type Browser, type ConsoleMessage, type Locator, type Page } from "playwright-core";
import { parseCliArgs, type ServeAuth } from "../../src/parse-cli-args.js";
import { startDevServer, type RunningDevServer } from "../../src/start-dev-server.js";
import { CHROMIUM_ARGS, query, seeCount, seeText as seeTextContent, until } from "../dev-ui/harness.js";

export { query, seeCount, until };
import { makeOfficialUiAgents, type FixtureAgents } from "./fixture-agents.js";

const APP_DIR = resolve(import.meta.dirname, "../..");
export const SCREENSHOTS = join(APP_DIR, "test-results/dev-ui-official");

/** ADK's compiled Angular dev UI, as shipped in `@google/adk-devtools` (a devDependency of this app). */
export function adkDevUiDir(): string {
  const entry = createRequire(join(APP_DIR, "package.json")).resolve("@google/adk-devtools");
  return resolve(dirname(entry), "../browser");
}

/** There is no internet here: the page's Google Fonts (CSS and font files) are blocked on purpose. */
const GOOGLE_FONTS = /^https:\/\/fonts\.(googleapis|gstatic)\.com\//;

/** One HTTP exchange of the page with the dev server (static assets left out). */
export interface Call {
  method: string;
  /** Path and query, e.g. `/run_sse` or `/list-apps?relative_path=./`. */
  path: string;
  /** The parsed JSON request body, if any. */
  body: unknown;
  status?: number;
  /** The response text (SSE text for /run_sse), once it has arrived. */
  response?: string;
  /** Why the request failed without a response (`net::ERR_ABORTED` when the page navigated away). */
  failure?: string;
}

export interface OfficialUiHarness {
  server: RunningDevServer;
  browser: Browser;
  page: Page;
  devUiDir: string;
  /** Every API call the page made, in order. */
  calls: Call[];
  /** Console errors and uncaught exceptions that are not explained (see `allowedConsoleError`). */
  problems: string[];
  /** Console errors that were allowed, with the reason, for the report. */
  allowed: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

export interface OfficialUiHarnessOptions {
  /**
   * Run the server with `--auth api-key` over these `AGENTKIT_API_KEYS` entries, and give the
   * page's browser context this key as `Authorization: Bearer <key>` on every request
   * (Playwright's extraHTTPHeaders: what a proxy in front of the server does for a browser).
   */
  auth?: { apiKeys: string; key: string };
}

/**
 * The real dev server (web mode, port 0, in-memory services) serving ADK's own compiled dev UI
 * from @google/adk-devtools over a temp agents directory of scripted agents, and one headless
 * Chromium page that records its API calls, console errors and uncaught exceptions.
 */
export async function startOfficialUiHarness(options: OfficialUiHarnessOptions = {}): Promise<OfficialUiHarness> {
  const devUiDir = adkDevUiDir();
  if (!existsSync(join(devUiDir, "index.html")))
    throw new Error(
      `ADK's dev UI is missing (${devUiDir}): @google/adk-devtools@2.0.0 must be installed in apps/dev-server.`,
    );
  mkdirSync(SCREENSHOTS, { recursive: true });
  const agents: FixtureAgents = await makeOfficialUiAgents();
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  let server: RunningDevServer | undefined;
  let browser: Browser | undefined;
  try {
    const auth = options.auth ? authOptions(options.auth.apiKeys) : {};
    server = await startDevServer({
      mode: "web",
      agentsDir: agents.dir,
      host: "127.0.0.1",
      port: 0,
      reload: false,
      allowOrigins: [],
      logLevel: "error",
      log: quiet,
      devUiDir,
      ...auth,
    });
    const origin = server.url;
    browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: CHROMIUM_ARGS });
    const context = await browser.newContext({
      viewport: { width: 1400, height: 860 },
      ...(options.auth ? { extraHTTPHeaders: { Authorization: `Bearer ${options.auth.key}` } } : {}),
    });
    // No deadline per action: a loaded machine only makes the UI slower; the test's own timeout bounds it.
    context.setDefaultTimeout(0);
    const page = await context.newPage();
    const calls: Call[] = [];
    const problems: string[] = [];
    const allowed: string[] = [];
    await page.route(GOOGLE_FONTS, (route) => route.abort("blockedbyclient"));
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() !== "error") return;
      const where = message.location().url;
      const reason = allowedConsoleError(message.text(), where, origin, devUiDir);
      if (reason === undefined) problems.push(`console: ${message.text()} (${where})`);
      else allowed.push(`${message.text()} (${where}): ${reason}`);
    });
    // Chromium does not hand out the body of a fetch read as a stream, so /run_sse goes through
    // a route that forwards it to the server unchanged and keeps a copy of the SSE text.
    await page.route("**/run_sse", async (route) => {
      const response = await route.fetch();
      const text = await response.text();
      const pending = () =>
        calls.find((c) => c.path === "/run_sse" && c.response === undefined && c.status === undefined);
      const call = await until(pending, (c) => c !== undefined, "the recorded /run_sse request");
      call!.response = text;
      await route.fulfill({ response, body: text });
    });
    page.on("request", (request) => {
      const url = new URL(request.url());
      if (url.origin !== origin || isStaticAsset(url.pathname)) return;
      const data = request.postData();
      calls.push({
        method: request.method(),
        path: url.pathname + url.search,
        body: data ? safeJson(data) : undefined,
      });
    });
    page.on("response", (response) => {
      const url = new URL(response.url());
      if (url.origin !== origin || isStaticAsset(url.pathname)) return;
      const path = url.pathname + url.search;
      const call = calls.find(
        (c) => c.path === path && c.method === response.request().method() && c.status === undefined,
      );
      if (!call) return;
      call.status = response.status();
      if (path !== "/run_sse" && response.status() < 300)
        response.text().then(
          (text) => (call.response = text),
          () => undefined, // the page navigated away before the body was read
        );
    });
    page.on("requestfailed", (request) => {
      const url = new URL(request.url());
      const call = calls.find(
        (c) =>
          c.path === url.pathname + url.search &&
          c.method === request.method() &&
          c.status === undefined &&
          c.failure === undefined,
      );
      if (call) call.failure = request.failure()?.errorText ?? "failed";
    });
    const running = server;
    const openBrowser = browser;
    return {
      server: running,
      browser: openBrowser,
      page,
      devUiDir,
      calls,
      problems,
      allowed,
      screenshot: async (name) => {
        await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      },
      close: async () => {
        await openBrowser.close();
        await running.close();
        await agents.cleanup();
      },
    };
  } catch (error) {
    await browser?.close();
    await server?.close();
    await agents.cleanup();
    throw error;
  }
}

/** The `auth` options of `agentkit web --auth api-key` with the keys in AGENTKIT_API_KEYS, as the CLI parses them. */
function authOptions(apiKeys: string): { auth?: ServeAuth } {
  const cli = parseCliArgs(["web", "--auth", "api-key"], { AGENTKIT_API_KEYS: apiKeys });
  return cli.command === "web" && cli.options.auth ? { auth: cli.options.auth } : {};
}

/**
 * Why a console error is expected, or undefined when it is a real problem:
 * - the blocked Google Fonts requests (no internet here);
 * - `prism-dark.css` / `prism-light.css`: the UI's theme service adds a <link> to them, but
 *   @google/adk-devtools 2.0.0 does not ship them in dist/browser, so ADK's own `adk web`
 *   (express.static over the same folder) answers 404 too. Allowed only while the file is absent.
 */
export function allowedConsoleError(text: string, where: string, origin: string, devUiDir: string): string | undefined {
  if (GOOGLE_FONTS.test(where) && /Failed to load resource/.test(text)) return "Google Fonts blocked (no internet)";
  const prism = new RegExp(`^${escapeRegExp(origin)}/dev-ui/(prism-(?:dark|light)\\.css)$`).exec(where);
  if (prism && /status of 404/.test(text) && !existsSync(join(devUiDir, prism[1]!)))
    return "not shipped in @google/adk-devtools dist/browser; ADK's server 404s too";
  return undefined;
}

function isStaticAsset(path: string): boolean {
  return path === "/dev-ui/" || /\.(js|css|svg|png|ico|woff2?|html)$/.test(path) || path.startsWith("/dev-ui/assets/");
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The calls that failed, as `METHOD path status-or-reason`: an error status, or no response
 * for a reason other than the browser cancelling it on a navigation (`net::ERR_ABORTED`). A
 * call the page made just before this is asked (a trace the last step's click fetched) is given
 * up to `ms` to get its answer first; one that still has none is listed as "no response".
 */
export async function failedCalls(h: OfficialUiHarness, ms = 30_000): Promise<string[]> {
  const unanswered = () => h.calls.filter((c) => c.status === undefined && c.failure === undefined);
  await until(unanswered, (pending) => pending.length === 0, "every call's answer", ms).catch(() => undefined);
  return h.calls
    .filter((c) => (c.status === undefined ? c.failure !== "net::ERR_ABORTED" : c.status >= 400))
    .map((c) => `${c.method} ${c.path} ${c.status ?? c.failure ?? "no response"}`);
}

/** Waits for the first call after index `from` matching method and path, with its response in. */
export function waitForCall(h: OfficialUiHarness, method: string, path: string | RegExp, from = 0): Promise<Call> {
  const matches = (c: Call) => c.method === method && (typeof path === "string" ? c.path === path : path.test(c.path));
  return until(
    () => h.calls.slice(from).find(matches),
    (c) => c !== undefined && c.status !== undefined && (c.status >= 300 || c.response !== undefined),
    `${method} ${String(path)} (calls so far: ${h.calls
      .slice(from)
      .map((c) => `${c.method} ${c.path} ${c.status ?? "…"}`)
      .join(", ")})`,
  ) as Promise<Call>;
}

/** Waits until the locator's (first) element's rendered text contains the string or matches the pattern. */
export function seeText(locator: Locator, expected: string | RegExp, ms?: number): Promise<string> {
  return seeTextContent(locator, expected, ms, "innerText");
}
