import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import type { BrowserContext, Page } from "playwright-core";
import { z } from "zod";
import {
  ComputerEnvironment,
  type BaseComputer,
  type ComputerState,
  type ScrollDirection,
  type TypeTextOptions,
} from "../base-computer.js";
import { ComputerUseError } from "../computer-use-error.js";
import { toPlaywrightKey } from "./key-names.js";

/** Flags verified with Debian's Chromium in containers (toolchain notes, section 4e). */
export const DEFAULT_CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const optionsSchema = z
  .object({
    executablePath: z.string().min(1).default("/usr/bin/chromium"),
    headless: z.boolean().default(true),
    screenSize: z.tuple([z.number().int().positive(), z.number().int().positive()]).default([1280, 800]),
    /** Page opened by `openWebBrowser()` and at start. */
    initialUrl: z.string().min(1).default("about:blank"),
    /** Page opened by `search()`. */
    searchEngineUrl: z.string().min(1).default("https://www.google.com"),
    /** Profile directory kept between runs; default: a fresh temp profile removed on close. */
    userDataDir: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Per-action timeout for navigation and clicks. */
    timeoutMs: z.number().int().positive().default(30_000),
  })
  .strict();

export type PlaywrightComputerOptions = z.input<typeof optionsSchema>;

/**
 * A `BaseComputer` driving Chromium through playwright-core (no bundled browser download:
 * `executablePath` points at the system Chromium). Call `start()` (or any action, which starts
 * it) and `close()`, which ends the browser process and removes a temp profile.
 */
export class PlaywrightComputer implements BaseComputer {
  private readonly options: z.output<typeof optionsSchema>;
  private context?: BrowserContext;
  private page?: Page;
  private starting?: Promise<Page>;
  private tempProfile?: string;
  private closed = false;

  constructor(options: PlaywrightComputerOptions = {}) {
    const parsed = optionsSchema.safeParse(options);
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid PlaywrightComputer options: ${detail}.`);
    }
    this.options = parsed.data;
  }

  /** The profile directory in use (a temp one unless `userDataDir` was given), once started. */
  get userDataDir(): string | undefined {
    return this.options.userDataDir ?? this.tempProfile;
  }

  async start(): Promise<void> {
    await this.getPage();
  }

  async screenSize(): Promise<[number, number]> {
    return [...this.options.screenSize];
  }

  async environment(): Promise<ComputerEnvironment> {
    return ComputerEnvironment.ENVIRONMENT_BROWSER;
  }

  async currentState(): Promise<ComputerState> {
    const page = await this.getPage();
    // Let navigations started by the action settle so the screenshot shows the result.
    await page.waitForLoadState("load", { timeout: this.options.timeoutMs }).catch(() => {});
    const screenshot = await page.screenshot({ type: "png" });
    return { screenshot: new Uint8Array(screenshot), url: page.url() };
  }

  async openWebBrowser(): Promise<ComputerState> {
    return this.currentState();
  }

  async clickAt(x: number, y: number): Promise<ComputerState> {
    await (await this.getPage()).mouse.click(x, y);
    return this.currentState();
  }

  async hoverAt(x: number, y: number): Promise<ComputerState> {
    await (await this.getPage()).mouse.move(x, y);
    return this.currentState();
  }

  async typeTextAt(
    x: number,
    y: number,
    text: string,
    { pressEnter = true, clearBeforeTyping = true }: TypeTextOptions = {},
  ): Promise<ComputerState> {
    const page = await this.getPage();
    await page.mouse.click(x, y);
    if (clearBeforeTyping) {
      await page.keyboard.press("ControlOrMeta+A");
      await page.keyboard.press("Delete");
    }
    await page.keyboard.type(text);
    if (pressEnter) await page.keyboard.press("Enter");
    return this.currentState();
  }

  async scrollDocument(direction: ScrollDirection): Promise<ComputerState> {
    const [width, height] = this.options.screenSize;
    return this.scrollAt(
      Math.floor(width / 2),
      Math.floor(height / 2),
      direction,
      direction === "left" || direction === "right" ? width / 2 : height / 2,
    );
  }

  async scrollAt(x: number, y: number, direction: ScrollDirection, magnitude: number): Promise<ComputerState> {
    const page = await this.getPage();
    await page.mouse.move(x, y);
    const dx = direction === "left" ? -magnitude : direction === "right" ? magnitude : 0;
    const dy = direction === "up" ? -magnitude : direction === "down" ? magnitude : 0;
    await page.mouse.wheel(dx, dy);
    // Wheel scrolling is applied asynchronously by the compositor.
    await page.waitForTimeout(200);
    return this.currentState();
  }

  async wait(seconds: number): Promise<ComputerState> {
    await (await this.getPage()).waitForTimeout(Math.max(0, seconds) * 1000);
    return this.currentState();
  }

  async goBack(): Promise<ComputerState> {
    await (await this.getPage()).goBack({ timeout: this.options.timeoutMs });
    return this.currentState();
  }

  async goForward(): Promise<ComputerState> {
    await (await this.getPage()).goForward({ timeout: this.options.timeoutMs });
    return this.currentState();
  }

  async search(): Promise<ComputerState> {
    return this.navigate(this.options.searchEngineUrl);
  }

  async navigate(url: string): Promise<ComputerState> {
    const page = await this.getPage();
    const target = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
    try {
      await page.goto(target, { timeout: this.options.timeoutMs });
    } catch (error) {
      throw new ComputerUseError(`Navigation to ${target} failed: ${(error as Error).message}`, { cause: error });
    }
    return this.currentState();
  }

  async keyCombination(keys: string[]): Promise<ComputerState> {
    if (keys.length === 0) throw new ComputerUseError("keyCombination needs at least one key.");
    const page = await this.getPage();
    const names = keys.map(toPlaywrightKey);
    const held: string[] = [];
    try {
      for (const key of names.slice(0, -1)) {
        await page.keyboard.down(key);
        held.push(key);
      }
      await page.keyboard.press(names[names.length - 1]!);
    } finally {
      for (const key of held.reverse()) await page.keyboard.up(key);
    }
    return this.currentState();
  }

  async dragAndDrop(x: number, y: number, destinationX: number, destinationY: number): Promise<ComputerState> {
    const page = await this.getPage();
    await page.mouse.move(x, y);
    await page.mouse.down();
    await page.mouse.move(destinationX, destinationY, { steps: 10 });
    await page.mouse.up();
    return this.currentState();
  }

  async close(): Promise<void> {
    this.closed = true;
    const starting = this.starting;
    this.starting = undefined;
    await starting?.catch(() => {});
    const context = this.context;
    this.context = undefined;
    this.page = undefined;
    // Closing the persistent context ends the browser process.
    await context?.close().catch(() => {});
    if (this.tempProfile) {
      await rm(this.tempProfile, { recursive: true, force: true });
      this.tempProfile = undefined;
    }
  }

  private async getPage(): Promise<Page> {
    if (this.closed) throw new ComputerUseError("This PlaywrightComputer was closed; create a new one.");
    if (this.page && !this.page.isClosed()) return this.page;
    this.starting ??= this.launch();
    try {
      return await this.starting;
    } finally {
      this.starting = undefined;
    }
  }

  private async launch(): Promise<Page> {
    const o = this.options;
    if (!this.context) {
      const dir = o.userDataDir ?? (this.tempProfile = await mkdtemp(join(tmpdir(), "agentkit-chromium-")));
      const [width, height] = o.screenSize;
      try {
        // Loaded on first use: playwright-core is an optional peer dependency.
        const { chromium } = await import("playwright-core");
        this.context = await chromium.launchPersistentContext(dir, {
          executablePath: o.executablePath,
          headless: o.headless,
          args: o.args ?? DEFAULT_CHROMIUM_ARGS,
          viewport: { width, height },
          timeout: o.timeoutMs,
        });
      } catch (error) {
        throw new ComputerUseError(
          `Could not start Chromium at ${o.executablePath} (install it, or set ` +
            `executablePath): ${(error as Error).message}`,
          {
            cause: error,
          },
        );
      }
      if (this.closed) {
        await this.context.close().catch(() => {});
        throw new ComputerUseError("This PlaywrightComputer was closed while starting.");
      }
    }
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    page.setDefaultTimeout(o.timeoutMs);
    if (page.url() === "about:blank" && o.initialUrl !== "about:blank") await page.goto(o.initialUrl);
    this.page = page;
    return page;
  }
}
