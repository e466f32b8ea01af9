// The real `agentkit` command as a child process, and temporary agents directories for it:
// shared by the tests that run the CLI end to end.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sendRun } from "@agentkit/test-support/send-run";

export const AGENTKIT_BIN = fileURLToPath(new URL("../../bin/agentkit.mjs", import.meta.url));
export const EXAMPLES_DIR = fileURLToPath(new URL("../../../../examples/agents", import.meta.url));
const coreDir = fileURLToPath(new URL("../../../../packages/core", import.meta.url));

/** No model keys: the examples then answer with their offline demo model. */
export { OFFLINE_ENV } from "@agentkit/test-support/offline-models";
/** A session create and one run, as a client sends them. */
export { sendRun } from "@agentkit/test-support/send-run";

export interface CliProcess {
  child: ChildProcess;
  output(): string;
  errors(): string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  /** The server's URL once its banner says it listens (rejects if it exits or takes over `ms`). */
  listening(ms?: number): Promise<string>;
  /** SIGTERM, then waits for the exit (no-op when it already exited). */
  stop(): Promise<void>;
}

/** Spawns `node bin/agentkit.mjs …args` with `env` added to this process's environment. */
export function startCli(
  args: readonly string[],
  env: Record<string, string> = {},
  stdin: "ignore" | "pipe" = "ignore",
): CliProcess {
  const child = spawn(process.execPath, [AGENTKIT_BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: [stdin, "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    output: () => out,
    errors: () => err,
    exited,
    async listening(ms = 60_000) {
      const [, url] = await waitFor(
        () => / on (http:\/\/127\.0\.0\.1:\d+)/.exec(out),
        () => out + err,
        ms,
        child,
      );
      return url!;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** What one `/run` answered. */
export interface RunAnswer {
  status: number;
  body: unknown;
}

/** `sendRun` on `/run` saying "hi": its status and JSON body. */
export async function askOnce(url: string, app: string): Promise<RunAnswer> {
  const res = await sendRun(url, app);
  return { status: res.status, body: await res.json() };
}

/**
 * Polls `check` every 50 ms until it matches; fails with the output so far when the child exits
 * (or after `ms`, by default never: a slow machine only makes it wait longer, and a hang fails
 * through the test's timeout).
 */
export async function waitFor(
  check: () => RegExpExecArray | RegExpMatchArray | null,
  what: () => string,
  ms = Number.POSITIVE_INFINITY,
  child?: ChildProcess,
): Promise<RegExpExecArray | RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = check();
    if (m) return m;
    if (child && child.exitCode !== null) throw new Error(`agentkit exited with ${child.exitCode}; output:\n${what()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting; output so far:\n${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface TempAgentsDir {
  dir: string;
  /** Writes a file under the directory (creating folders). */
  write(rel: string, content: string): void;
  remove(): void;
}

/**
 * A temporary agents directory whose agents can import the workspace's `@agentkit/core` (and
 * zod), the same module instances the server uses.
 */
export function tempAgentsDir(prefix: string): TempAgentsDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const write = (rel: string, content: string) => {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  };
  mkdirSync(join(dir, "node_modules", "@agentkit"), { recursive: true });
  symlinkSync(coreDir, join(dir, "node_modules", "@agentkit", "core"), "dir");
  symlinkSync(realpathSync(join(coreDir, "node_modules", "zod")), join(dir, "node_modules", "zod"), "dir");
  write("package.json", JSON.stringify({ type: "module", private: true }));
  return { dir, write, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
