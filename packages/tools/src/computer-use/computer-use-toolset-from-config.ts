import { accessSync, constants, statSync } from "node:fs";
import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { configPath, parseConfigArgs, snakeKeys } from "../config-args.js";
import { ComputerEnvironment } from "./base-computer.js";
import { ComputerUseToolset } from "./computer-use-toolset.js";
import { PlaywrightComputer } from "./playwright/playwright-computer.js";

const TOOL = "ComputerUseToolset";
const pixels = z.number().int().positive();

/**
 * The `args` of a `ComputerUseToolset` entry in a YAML agent config (snake_case; camelCase
 * also accepted). The computer is always a `PlaywrightComputer` (Chromium), so the only
 * environment is the browser.
 */
const configSchema = z.strictObject({
  executable_path: z.string().min(1).optional(),
  headless: z.boolean().optional(),
  screen_size: z.tuple([pixels, pixels]).optional(),
  viewport: z.strictObject({ width: pixels, height: pixels }).optional(),
  initial_url: z.string().min(1).optional(),
  search_engine_url: z.string().min(1).optional(),
  user_data_dir: z.string().min(1).optional(),
  browser_args: z.array(z.string()).optional(),
  environment: z
    .enum([ComputerEnvironment.ENVIRONMENT_BROWSER, "browser"], {
      error:
        "only ENVIRONMENT_BROWSER is available from a YAML config (the computer is Playwright's Chromium); use a " +
        "code reference for other computers",
    })
    .optional(),
  timeout: z.number().positive().optional(),
  tool_filter: z.array(z.string()).optional(),
});

export interface ComputerUseToolsetFromConfigOptions {
  /** Directory a relative `user_data_dir` is resolved against (default: `process.cwd()`). */
  baseDir?: string;
}

/**
 * Builds a `ComputerUseToolset` over a `PlaywrightComputer` from a YAML agent config's
 * `args`, for the agent loader's `builtInTools` map. Async because it checks, at load time,
 * that the optional peer `playwright-core` is installed and the browser binary exists (so a
 * broken setup fails when the agent loads, not at the model's first click). The browser
 * itself starts on the first action.
 */
export async function computerUseToolsetFromConfig(
  args: Record<string, unknown> | undefined,
  options: ComputerUseToolsetFromConfigOptions = {},
): Promise<ComputerUseToolset> {
  const c = parseConfigArgs(TOOL, configSchema, snakeKeys(args ?? {}, ["viewport"]));
  if (c.screen_size && c.viewport)
    throw new ConfigurationError(`${TOOL} args: give screen_size or viewport, not both.`);
  const size: [number, number] | undefined =
    c.screen_size ?? (c.viewport ? [c.viewport.width, c.viewport.height] : undefined);

  try {
    await import("playwright-core");
  } catch (error) {
    throw new ConfigurationError(
      `${TOOL} needs the optional peer dependency playwright-core; install it next to @agentkit/tools.`,
      { cause: error },
    );
  }
  const executablePath = c.executable_path ?? "/usr/bin/chromium";
  try {
    if (!statSync(executablePath).isFile()) throw new Error("not a file");
    accessSync(executablePath, constants.X_OK);
  } catch (error) {
    throw new ConfigurationError(
      `${TOOL} args: executable_path: no executable browser at ${executablePath} (install Chromium or set ` +
        `executable_path).`,
      {
        cause: error,
      },
    );
  }

  const computer = new PlaywrightComputer({
    executablePath,
    ...(c.headless !== undefined ? { headless: c.headless } : {}),
    ...(size ? { screenSize: size } : {}),
    ...(c.initial_url ? { initialUrl: c.initial_url } : {}),
    ...(c.search_engine_url ? { searchEngineUrl: c.search_engine_url } : {}),
    ...(c.user_data_dir ? { userDataDir: configPath(c.user_data_dir, options.baseDir) } : {}),
    ...(c.browser_args ? { args: c.browser_args } : {}),
    ...(c.timeout ? { timeoutMs: Math.max(1, Math.round(c.timeout * 1000)) } : {}),
  });
  return new ComputerUseToolset({ computer, ...(c.tool_filter ? { toolFilter: c.tool_filter } : {}) });
}
