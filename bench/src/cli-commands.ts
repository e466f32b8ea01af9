// What the CLI benchmarks start: `agentkit api-server` on the example agents (with in-memory or
// on-disk services) and the bare node:http baseline, each as a user runs it (`node <script>`),
// and the agent flow they send it.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { OFFLINE_ENV } from "@agentkit/test-support/offline-models";
import { sendRun } from "@agentkit/test-support/send-run";
import { repoRoot } from "./repo-root.js";

export const agentkitBin = join(repoRoot, "apps/dev-server/bin/agentkit.mjs");
export const exampleAgentsDir = join(repoRoot, "examples/agents");
export const bareServerScript = join(repoRoot, "bench/src/bare-http-server.mjs");

/** `api-server` options for in-memory sessions and artifacts. */
export const inMemoryServices = (): string[] => [
  "--session-service-uri",
  "memory://",
  "--artifact-service-uri",
  "memory://",
];

/** `api-server` options for the default kinds of services (SQLite sessions, file artifacts) under `dir`. */
export const onDiskServices = (dir: string): string[] => [
  "--session-service-uri",
  `sqlite://${join(dir, "sessions.db")}`,
  "--artifact-service-uri",
  `file://${join(dir, "artifacts")}`,
];

/**
 * Makes sure the source runtime's bundle cache matches the sources (apps/dev-server/src/source-bundles.ts):
 * one `api-server` start, kept until it is warm and, when it found no current bundles, until it
 * has built them.
 */
export async function prepareSourceBundles(): Promise<void> {
  const child = spawn(
    process.execPath,
    [agentkitBin, "api-server", exampleAgentsDir, "--port", "0", ...inMemoryServices()],
    {
      env: { ...process.env, ...OFFLINE_ENV, AGENTKIT_STARTUP_TIMING: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let out = "";
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  try {
    await new Promise<void>((resolve, reject) => {
      const check = () => {
        if (/hooks ready \(source, bundled\)/.test(err) && /warmed up/.test(out)) resolve();
        else if (/bundled the workspace's sources/.test(out)) resolve();
        else if (/the sources stay unbundled|bundling the sources failed/.test(err)) reject(new Error(err));
      };
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        check();
      });
      child.stderr.on("data", check);
      child.once("exit", (code) => reject(new Error(`agentkit exited with ${code}: ${out}${err}`)));
    });
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

/** A server spawned as a user runs it (`node <args>`), once its banner named its URL. */
export interface CliServer {
  readonly pid: number;
  readonly url: string;
  /** What it printed so far. */
  output(): { out: string; err: string };
  /** SIGTERM, then its exit. */
  stop(): Promise<void>;
}

/** Spawns `node <args>` and resolves at its banner (`… on http://…`); rejects if it exits first. */
export async function startCliServer(args: string[], env: NodeJS.ProcessEnv): Promise<CliServer> {
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    child.kill("SIGTERM");
    await exited;
  };
  let out = "";
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        const m = / on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`${args[0]} exited with ${code}: ${out}${err}`)));
    });
    return { pid: child.pid!, url, output: () => ({ out, err }), stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * One agent flow as a client sends it: a session created for user `u` of `app`, then `/run` with
 * a message; throws unless the answer is 200 and contains `expect`.
 */
export async function agentFlow(url: string, app: string, expect: string): Promise<void> {
  const run = await sendRun(url, app);
  const text = await run.text();
  if (run.status !== 200 || !text.includes(expect))
    throw new Error(`unexpected /run answer: ${run.status} ${text.slice(0, 200)}`);
}
