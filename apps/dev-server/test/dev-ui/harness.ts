import { existsSync, mkdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import {
  chromium,
  type Browser,
  type BrowserContext,
  type ConsoleMessage,
  type Locator,
  type Page,
} from "playwright-core";
import { devUiDir } from "@agentkit/dev-ui";
import { startDevServer, type RunningDevServer } from "../../src/start-dev-server.js";
import { makeFixtureAgents, type FixtureAgents } from "./fixture-agents.js";

export const SCREENSHOTS = resolve(import.meta.dirname, "../../test-results/dev-ui");

/** The launch flags of toolchain.md 4e for Debian's Chromium in a container. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/** A fake microphone (a tone) that needs no permission prompt, for the live-audio flow. */
const FAKE_MEDIA_ARGS = [
  "--use-fake-ui-for-media-stream",
  "--use-fake-device-for-media-stream",
  "--autoplay-policy=no-user-gesture-required",
];

export interface Harness {
  server: RunningDevServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught exceptions seen in the page so far. */
  problems: string[];
  /** Every /run_sse exchange of the page: the request body and the whole SSE text. */
  runs: { request: Record<string, unknown>; body: string }[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real dev server (web mode, port 0) over a temp agents directory of scripted agents (or
 * the given one), and one headless Chromium page that records console errors and uncaught
 * exceptions.
 */
export async function startHarness(options: { apps?: readonly string[]; agentsDir?: string } = {}): Promise<Harness> {
  if (!existsSync(join(devUiDir(), "index.html"))) {
    throw new Error(
      `The dev UI is not built (${devUiDir()}): run \`pnpm --filter @agentkit/dev-ui run build:ui\` (turbo does it ` +
        `before these tests).`,
    );
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
  // an agents directory of the caller's (the examples) is used as it is and left in place
  const agents: FixtureAgents = options.agentsDir
    ? { dir: options.agentsDir, cleanup: async () => undefined }
    : await makeFixtureAgents(options.apps);
  const data = await mkdtemp(join(tmpdir(), "agentkit-dev-ui-data-"));
  const quiet = new Writable({ write: (_chunk, _enc, done) => done() });
  let server: RunningDevServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startDevServer({
      mode: "web",
      agentsDir: agents.dir,
      host: "127.0.0.1",
      port: 0,
      reload: false,
      allowOrigins: [],
      sessionServiceUri: `sqlite://${join(data, "sessions.db")}`,
      artifactServiceUri: `file://${join(data, "artifacts")}`,
      logLevel: "error",
      log: quiet,
    });
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: [...CHROMIUM_ARGS, ...FAKE_MEDIA_ARGS],
    });
    const context = await browser.newContext({
      viewport: { width: 1400, height: 860 },
      colorScheme: "light",
      acceptDownloads: true,
      permissions: ["microphone"],
    });
    // No deadline per action: a loaded machine only makes the UI slower; the test's own timeout bounds it.
    context.setDefaultTimeout(0);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`));
    page.on("console", (message: ConsoleMessage) => {
      if (message.type() !== "error") return;
      const where = message.location().url;
      // A trace lookup for an event that no model call produced is a 404 by contract (http-api.md 4.8).
      if (
        /Failed to load resource: .*404/.test(message.text()) &&
        /\/debug\/trace\/[^/]+$/.test(where) &&
        !where.includes("/session/")
      )
        return;
      problems.push(`console: ${message.text()} (${where})`);
    });
    page.on("dialog", (dialog) => void dialog.accept());
    // Chromium cannot hand out the body of a fetch read as a stream, so run_sse goes through a
    // route that forwards it to the server and records what the server answered.
    const runs: Harness["runs"] = [];
    await page.route("**/run_sse", async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      runs.push({ request: JSON.parse(route.request().postData() ?? "{}") as Record<string, unknown>, body });
      await route.fulfill({ response, body });
    });
    const running = server;
    const openBrowser = browser;
    return {
      server: running,
      browser: openBrowser,
      context,
      page,
      problems,
      runs,
      screenshot: async (name) => {
        await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
      },
      close: async () => {
        await openBrowser.close();
        await running.close();
        await agents.cleanup();
        await rm(data, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await browser?.close();
    await server?.close();
    await agents.cleanup();
    await rm(data, { recursive: true, force: true });
    throw error;
  }
}

/** Types a message and presses Enter; resolves with the /run_sse exchange once the server answered. */
export async function sendMessage(h: Harness, text: string): Promise<Harness["runs"][number]> {
  const before = h.runs.length;
  const box = h.page.getByRole("textbox", { name: "Message" });
  await box.fill(text);
  await box.press("Enter");
  await until(
    async () => h.runs.length,
    (n) => n > before,
    `the run_sse answer to "${text}"`,
    30_000,
  );
  return h.runs[before]!;
}

/** The query parameters of the page's URL. */
export function query(page: Page): URLSearchParams {
  return new URL(page.url()).searchParams;
}

/** Polls until `read` gives a value `check` accepts (playwright-core has no web-first assertions). */
export async function until<T>(
  read: () => Promise<T> | T,
  check: (value: T) => boolean,
  what: string,
  ms = Number.POSITIVE_INFINITY,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try {
      last = await read();
      if (check(last)) return last;
    } catch {
      // element not there yet
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Waits until the locator's (first) element text contains the string or matches the pattern;
 * `read` picks the DOM's `textContent` (default) or the rendered `innerText`.
 */
export function seeText(
  locator: Locator,
  expected: string | RegExp,
  ms?: number,
  read: "textContent" | "innerText" = "textContent",
): Promise<string> {
  const ok = (text: string) => (typeof expected === "string" ? text.includes(expected) : expected.test(text));
  return until(
    async () => (await locator.first()[read]({ timeout: 1000 })) ?? "",
    ok,
    `text ${String(expected)} in ${String(locator)}`,
    ms,
  );
}

/** Waits until the locator matches exactly `n` elements. */
export function seeCount(locator: Locator, n: number): Promise<number> {
  return until(
    () => locator.count(),
    (c) => c === n,
    `${n} of ${String(locator)}`,
  );
}
