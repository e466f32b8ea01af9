import type { PerformanceMark } from "node:perf_hooks";
import { AgentKitError, VERSION } from "@agentkit/core";
import { CliUsageError } from "./cli-usage-error.js";
import { HELP_TEXT } from "./help-text.js";
import { parseCliArgs } from "./parse-cli-args.js";

export interface CliIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/** What the process that runs the CLI (bin/agentkit.mjs) hooks into. */
export interface MainHooks {
  /** Called once a server command's warm-up has ended (the source runtime bundles then). */
  afterWarmUp?: (() => void) | undefined;
}

/**
 * Runs one CLI command; resolves to the process exit code. Server commands resolve once the
 * server has stopped (SIGINT/SIGTERM: graceful shutdown).
 */
export async function main(
  argv: readonly string[],
  io: CliIo = { stdout: process.stdout, stderr: process.stderr, env: process.env },
  hooks: MainHooks = {},
): Promise<number> {
  try {
    const cli = parseCliArgs(argv, io.env);
    switch (cli.command) {
      case "help":
        io.stdout.write(HELP_TEXT);
        return 0;
      case "version":
        io.stdout.write(`agentkit ${VERSION}\n`);
        return 0;
      // Each command imports what it needs, so `help` and `version` load next to nothing.
      case "run": {
        const { runTerminalChat } = await import("./terminal-chat.js");
        await runTerminalChat({ ...cli, output: io.stdout });
        return 0;
      }
      case "conformance": {
        const { runConformance } = await import("./conformance-command.js");
        const results = await runConformance({ ...cli, output: io.stdout });
        return results.every((r) => r.passed) ? 0 : 1;
      }
      case "eval": {
        const { runEvalCommand } = await import("./eval-command.js");
        // Ctrl+C stops the running agents and exits 130 instead of leaving them half-run.
        const abort = new AbortController();
        const stop = () => abort.abort(new Error("cancelled"));
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
        try {
          return await runEvalCommand(cli.options, { stdout: io.stdout, stderr: io.stderr, signal: abort.signal });
        } finally {
          process.off("SIGINT", stop);
          process.off("SIGTERM", stop);
        }
      }
      case "eval_set": {
        const { runEvalSetCommand } = await import("./eval-set-command.js");
        await runEvalSetCommand(cli.options, io.stdout);
        return 0;
      }
      case "web":
      case "api-server": {
        // Keys given in the environment are read once: agents' subprocesses (code executors,
        // MCP servers) must not inherit them.
        if (cli.options.auth?.mode === "api-key" && cli.options.auth.keysText !== undefined)
          delete io.env.AGENTKIT_API_KEYS;
        const { startDevServer } = await import("./start-dev-server.js");
        const modulesLoaded = performance.now();
        const server = await startDevServer({
          ...cli.options,
          mode: cli.command === "web" ? "web" : "api",
          log: io.stdout,
          env: io.env,
        });
        if (io.env.AGENTKIT_STARTUP_TIMING === "1") io.stderr.write(startupTiming(modulesLoaded));
        if (hooks.afterWarmUp) void server.warmedUp.then(hooks.afterWarmUp);
        await waitForSignal();
        io.stdout.write("agentkit: shutting down\n");
        await server.close();
        return 0;
      }
    }
  } catch (error) {
    if (error instanceof CliUsageError) {
      io.stderr.write(`${error.message}\nRun "agentkit help" for usage.\n`);
      return 2;
    }
    io.stderr.write(
      `agentkit: ${error instanceof AgentKitError ? error.message : ((error as Error).stack ?? String(error))}\n`,
    );
    return 1;
  }
}

/**
 * Where start-up time went, from the process's time origin: Node's own bootstrap, the runtime's
 * module hooks ready (bin/agentkit.mjs; none for dist), the CLI's modules loaded, listening.
 */
function startupTiming(modulesLoaded: number): string {
  const hooks = performance.getEntriesByName("agentkit:hooks")[0] as PerformanceMark | undefined;
  const ms = (t: number) => `${Math.round(t)} ms`;
  const parts = [`node bootstrap ${ms(performance.nodeTiming.bootstrapComplete)}`];
  if (hooks) parts.push(`hooks ready (${String(hooks.detail)}) ${ms(hooks.startTime)}`);
  parts.push(`modules loaded ${ms(modulesLoaded)}`, `listening ${ms(performance.now())}`);
  return `agentkit startup: ${parts.join(", ")}\n`;
}

function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}
