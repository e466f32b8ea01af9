// A benchmark server in its own process (spawned by server-process.ts): agentkit's
// createAgentServer, ADK's AdkApiServer or the bare node:http baseline, each serving the bench
// agent as app "bench" on 127.0.0.1 (a free port). It prints `LISTENING <url>` and answers
// its parent over IPC: `stats` (CPU used so far, RSS, heap), `gc` (global.gc(), needs
// --expose-gc, then stats), `profile-start` / `profile-stop` (a CPU profile of that window).
// With `--warm-up` (agentkit only) it runs the server's start-up warm-up (`AgentServer.warmUp()`:
// the app, its models, the framework's code paths once) before it says it is listening, as
// `agentkit api-server` has done by the time its `/readyz` answers 200.
// With `--idle-memory-ms N` (agentkit only) the server gives memory back after N ms of quiet
// (`reduceMemoryWhenIdle`; its default is 30 s, longer than any benchmark's pause).
// With `--traced` (agentkit only) every run is traced into the dev UI's trace recorder, as
// `agentkit web` does (`createTraceRecorder()` with its defaults: content capture on, bounded).
// Usage (by server-process.ts): server-child.ts --kind agentkit|adk|bare [--sessions memory|sqlite:<file>] [--warm-up]
//   [--idle-memory-ms N] [--traced]
import { performance } from "node:perf_hooks";
import { memoryUsage } from "node:process";
import { getHeapSpaceStatistics } from "node:v8";
import { flag, stringArg } from "./args.js";
import { startBareHttpServer } from "./bare-http-server.mjs";
import { startCpuProfile } from "./cpu-profile.js";
import { startPromiseCount } from "./promise-count.js";
import { type ThreadTicks, threadTicks } from "./thread-cpu.js";

/** `baseline`: agentkit's server from another checkout (its own server-child.ts, `--kind agentkit`). */
export type ServerKind = "agentkit" | "adk" | "bare" | "baseline";

export type ChildRequest =
  | { op: "stats" }
  | { op: "gc" }
  | { op: "profile-start" }
  | { op: "profile-stop"; file: string }
  | { op: "promises-start" }
  | { op: "promises-stop" };

export interface ChildStats {
  /** process.cpuUsage() user + system since the process started, µs. */
  cpuUs: number;
  rss: number;
  heapUsed: number;
  /** V8's heap as committed (live objects plus the free room it keeps, young generation included). */
  heapTotal: number;
  /** Of which V8's young generation (semi-spaces), which grows under load and stays grown. */
  newSpace: number;
  /** Answering `promises-stop`: the promises the server made since `promises-start`. */
  promises?: number;
  /** Memory outside the JS heap held by JS objects (buffers). */
  external: number;
  /** CPU clock ticks so far on the main thread and on the others (Linux; zeros elsewhere). */
  threads: ThreadTicks;
  /** agentkit: idle memory reductions its server ran so far (`AgentServer.stats()`). */
  idleMemoryReductions?: number;
}

interface StartedServer {
  url: string;
  close: () => Promise<void>;
  idleMemoryReductions?: () => number;
}

/** Starts the server; resolves with its URL and how to close it. */
async function start(kind: ServerKind, sessions: string): Promise<StartedServer> {
  if (kind === "bare") {
    const { server, url } = await startBareHttpServer();
    return { url, close: () => new Promise((resolve) => server.close(() => resolve())) };
  }
  if (kind === "adk") {
    // Loaded here only, so the other servers do not pay for ADK's modules.
    const [{ InMemorySessionService, LogLevel, setLogLevel }, { AdkApiServer }, { makeAdkBenchAgent }] =
      await Promise.all([import("@google/adk"), import("@google/adk-devtools"), import("./adk-bench-agent.js")]);
    if (sessions !== "memory") throw new Error("the ADK server runs on its in-memory session service only");
    // `adk api_server` logs every request at its default level (info); warnings only here, as
    // agentkit's server, which logs no request.
    setLogLevel(LogLevel.WARN);
    const agent = makeAdkBenchAgent();
    // What `createStaticAgentLoader` is to agentkit: the agent in memory, no agents directory
    // (AdkApiServer's own AgentLoader bundles agent files with esbuild at the first request).
    const loaded = { load: async () => agent, [Symbol.asyncDispose]: async () => {} };
    const agentLoader = {
      listAgents: async () => ["bench"],
      listApps: async () => [],
      listLoadFailures: async () => [],
      getAgentFile: async (name: string) => {
        if (name !== "bench") throw new Error(`Agent '${name}' not found`);
        return loaded;
      },
      getAppFile: async () => loaded,
      preloadAgents: async () => {},
      disposeAll: async () => {},
    };
    type Options = ConstructorParameters<typeof AdkApiServer>[0];
    const server = new AdkApiServer({
      host: "127.0.0.1",
      port: 0,
      sessionService: new InMemorySessionService(),
      agentLoader: agentLoader as unknown as Options["agentLoader"],
      logLevel: LogLevel.WARN,
    });
    await server.start();
    return { url: server.url, close: () => server.stop() };
  }
  const [{ InMemoryArtifactService }, { InMemoryMemoryService, InMemorySessionService }, server, { makeBenchAgent }] =
    await Promise.all([
      import("@agentkit/artifacts"),
      import("@agentkit/sessions"),
      import("@agentkit/server"),
      import("./bench-agent.js"),
    ]);
  const sessionService = sessions.startsWith("sqlite:")
    ? new (await import("@agentkit/sessions/sqlite")).SqliteSessionService({ path: sessions.slice("sqlite:".length) })
    : new InMemorySessionService();
  const idleMemoryMs = stringArg("idle-memory-ms", "");
  // Loaded only when asked, as `agentkit api-server` never loads the dev tooling.
  const recorder = flag("traced") ? (await import("@agentkit/server/devtools")).createTraceRecorder() : undefined;
  const agentServer = server.createAgentServer({
    loader: server.createStaticAgentLoader({ apps: { bench: makeBenchAgent() } }),
    sessionService,
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "api",
    ...(idleMemoryMs ? { reduceMemoryWhenIdle: { afterMs: Number(idleMemoryMs) } } : {}),
    ...(recorder ? { plugins: [recorder.plugin] } : {}),
  });
  const { url } = await agentServer.listen({ host: "127.0.0.1", port: 0 });
  if (flag("warm-up")) {
    const report = await agentServer.warmUp();
    const problems = report.apps.flatMap((app) => app.problems);
    if (!report.completed || problems.length > 0) throw new Error(`warm-up failed: ${problems.join("; ")}`);
  }
  return {
    url,
    close: async () => {
      await agentServer.close();
      await recorder?.shutdown();
      await sessionService.close();
    },
    // A baseline checkout's server may predate the counter.
    idleMemoryReductions: () => agentServer.stats().idleMemoryReductions ?? 0,
  };
}

function stats(server: StartedServer): ChildStats {
  const cpu = process.cpuUsage();
  const mem = memoryUsage();
  const newSpace = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
  return {
    cpuUs: cpu.user + cpu.system,
    rss: mem.rss,
    heapUsed: mem.heapUsed,
    heapTotal: mem.heapTotal,
    newSpace: newSpace?.space_size ?? 0,
    external: mem.external,
    threads: threadTicks(),
    ...(server.idleMemoryReductions ? { idleMemoryReductions: server.idleMemoryReductions() } : {}),
  };
}

async function main(): Promise<void> {
  const kind = stringArg("kind", "agentkit") as ServerKind;
  const started = await start(kind, stringArg("sessions", "memory"));
  const { url, close } = started;
  let stopProfile: ((file: string) => Promise<void>) | undefined;
  let stopPromiseCount: (() => number) | undefined;
  process.on("message", (message: ChildRequest) => {
    void (async () => {
      let promises: number | undefined;
      if (message.op === "promises-start") stopPromiseCount = startPromiseCount();
      else if (message.op === "promises-stop") {
        promises = stopPromiseCount?.();
        stopPromiseCount = undefined;
      } else if (message.op === "gc") {
        if (typeof globalThis.gc !== "function")
          throw new Error("gc requested, but the server runs without --expose-gc");
        globalThis.gc();
      } else if (message.op === "profile-start") stopProfile = await startCpuProfile();
      else if (message.op === "profile-stop") {
        await stopProfile?.(message.file);
        stopProfile = undefined;
      }
      process.send!({ op: message.op, ...stats(started), ...(promises !== undefined ? { promises } : {}) });
    })();
  });
  const stop = () => void close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  // The benchmark process is gone (crashed or killed): no orphaned server.
  process.on("disconnect", stop);
  process.stdout.write(`LISTENING ${url} ${performance.now().toFixed(1)}\n`);
}

await main();
