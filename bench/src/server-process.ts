// The parent's side of server-child.ts: spawns a benchmark server in a fresh Node process
// (this process's flags: tsx and the source condition, plus any extra), waits for its URL and
// reads the server's own CPU and memory over IPC, so a figure never includes the load
// generator's work.
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ChildRequest, ChildStats, ServerKind } from "./server-child.js";

export interface ServerProcess {
  kind: ServerKind;
  url: string;
  pid: number;
  /** The server's CPU so far (µs), RSS and heap. */
  stats(): Promise<ChildStats>;
  /** global.gc() in the server (started with `exposeGc`), then its stats. */
  gc(): Promise<ChildStats>;
  profileStart(): Promise<void>;
  /** Writes the CPU profile since profileStart to `file`. */
  profileStop(file: string): Promise<void>;
  /** Counts the promises the server makes from now (an `async_hooks` hook in the server, slowing it). */
  promisesStart(): Promise<void>;
  /** Stops counting; the promises made since promisesStart. */
  promisesStop(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  /** "memory" (default) or "sqlite:<file>" (agentkit only). */
  sessions?: string;
  exposeGc?: boolean;
  /** For kind `baseline`: the root of the other checkout (its dependencies installed). */
  baselineDir?: string;
  /** agentkit: run the server's start-up warm-up before it counts as started (server-child.ts). */
  warmUp?: boolean;
  /** agentkit: give memory back after this many ms of quiet (`reduceMemoryWhenIdle`). */
  idleMemoryMs?: number;
  /** agentkit: record traces as `agentkit web` does (server-child.ts `--traced`). */
  traced?: boolean;
}

const childScript = fileURLToPath(new URL("./server-child.ts", import.meta.url));
const resolveHook = new URL("./ts-resolve-hook.ts", import.meta.url).href;

/**
 * agentkit's sources need tsx (this process's flags, with the source condition); the bare and
 * ADK servers are plain JavaScript plus bench files Node can type-strip itself, so they load
 * without tsx's module hooks (ADK loads about 2,500 modules).
 */
const nodeFlags = (kind: ServerKind) =>
  kind === "agentkit" || kind === "baseline"
    ? process.execArgv
    : ["--disable-warning=ExperimentalWarning", "--import", resolveHook];

export function startServer(kind: ServerKind, options: StartServerOptions = {}): Promise<ServerProcess> {
  // A baseline server is the other checkout's own child script, run from its bench folder (its tsx).
  const baseline = kind === "baseline" ? baselineBench(options.baselineDir) : undefined;
  const args = [
    ...nodeFlags(kind),
    ...(options.exposeGc ? ["--expose-gc"] : []),
    baseline ? join(baseline, "src", "server-child.ts") : childScript,
    "--kind",
    baseline ? "agentkit" : kind,
    "--sessions",
    options.sessions ?? "memory",
    ...(options.warmUp ? ["--warm-up"] : []),
    ...(options.idleMemoryMs !== undefined ? ["--idle-memory-ms", String(options.idleMemoryMs)] : []),
    ...(options.traced ? ["--traced"] : []),
  ];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
    ...(baseline ? { cwd: baseline } : {}),
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let out = "";
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /LISTENING (\S+) /.exec(out);
      if (!m) return;
      // Keep draining stdout (ADK prints banners) so the child never blocks on a full pipe.
      child.stdout!.off("data", onData);
      child.stdout!.resume();
      child.off("exit", onEarlyExit);
      resolve(handle(kind, child, m[1]!, exited));
    };
    const onEarlyExit = (code: number | null) => reject(new Error(`${kind} server exited with ${code}: ${out}`));
    child.stdout!.on("data", onData);
    child.once("exit", onEarlyExit);
  });
}

function baselineBench(dir: string | undefined): string {
  if (!dir) throw new Error("a baseline server needs --baseline <the other checkout's root>");
  return join(resolve(dir), "bench");
}

function handle(kind: ServerKind, child: ChildProcess, url: string, exited: Promise<void>): ServerProcess {
  const ask = (request: ChildRequest) =>
    new Promise<ChildStats>((resolve, reject) => {
      const onMessage = (m: { op: string } & ChildStats) => {
        if (m.op !== request.op) return;
        child.off("message", onMessage);
        child.off("exit", onExit);
        resolve(m);
      };
      const onExit = () => reject(new Error(`${kind} server exited while answering ${request.op}`));
      child.on("message", onMessage);
      child.once("exit", onExit);
      child.send(request);
    });
  return {
    kind,
    url,
    pid: child.pid!,
    stats: () => ask({ op: "stats" }),
    gc: () => ask({ op: "gc" }),
    profileStart: async () => void (await ask({ op: "profile-start" })),
    profileStop: async (file) => void (await ask({ op: "profile-stop", file })),
    promisesStart: async () => void (await ask({ op: "promises-start" })),
    promisesStop: async () => (await ask({ op: "promises-stop" })).promises ?? Number.NaN,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
