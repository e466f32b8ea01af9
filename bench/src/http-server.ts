// HTTP overhead of @agentkit/server with an instant model, measured against a bare node:http
// server answering a fixed JSON body in the same run (so the figures are ratios that survive a
// noisy machine). Servers run in child processes; this process is the load generator.
//   1. flows per second and p50/p99 latency at concurrency 1, 16, 64:
//      - "run":      POST create session + POST /run (one model answer);
//      - "run_sse":  POST create session + POST /run_sse (body read to the end);
//      - "bare":     the same two requests (POST, then POST with the same JSON body) to a bare
//                    node:http server that reads each body and answers a fixed JSON body: the
//                    same HTTP work per flow, none of agentkit's.
//   2. cold start: time from spawning a fresh process to the first /run answer (and, for
//      comparison, to the first answer of the bare server).
// Usage: pnpm bench:http [-- --seconds 3 --cold 5]
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import { fileURLToPath } from "node:url";
import { hrtime } from "node:process";
import { performance } from "node:perf_hooks";
import type { LlmResponse } from "@agentkit/core";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SECONDS = arg("seconds", 3);
const COLD_RUNS = arg("cold", 5);
const CONCURRENCY = [1, 16, 64];

const BARE_BODY = JSON.stringify([
  { id: "x", author: "bench_agent", content: { role: "model", parts: [{ text: "The answer is 42." }] } },
]);
const BARE_SESSION = JSON.stringify({
  id: "00000000-0000-4000-8000-000000000000",
  appName: "bench",
  userId: "u",
  state: {},
  events: [],
  lastUpdateTime: 0,
});

// ---- child process: a server --------------------------------------------------------------

async function serve(kind: string): Promise<void> {
  if (kind === "bare") {
    // Reads the request body like the agent server does, then answers a session or an answer.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = req.url === "/run" ? BARE_BODY : BARE_SESSION;
        if (req.url === "/run") JSON.parse(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    process.stdout.write(`LISTENING http://127.0.0.1:${port} ${performance.now().toFixed(1)}\n`);
    return;
  }
  // Loaded only here, so the bare server's cold start does not pay for agentkit's modules.
  const [
    { BaseLlm, LlmAgent },
    { InMemoryArtifactService },
    { InMemoryMemoryService, InMemorySessionService },
    { createAgentServer, createStaticAgentLoader },
  ] = await Promise.all([
    import("@agentkit/core"),
    import("@agentkit/artifacts"),
    import("@agentkit/sessions"),
    import("@agentkit/server"),
  ]);
  /** Answers every request at once with one text part. */
  class InstantTextModel extends BaseLlm {
    constructor() {
      super({ model: "instant-text" });
    }
    async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
      yield {
        content: { role: "model", parts: [{ text: "The answer is 42." }] },
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
    }
  }
  const server = createAgentServer({
    loader: createStaticAgentLoader({
      apps: { bench: new LlmAgent({ name: "bench_agent", model: new InstantTextModel(), instruction: "Answer." }) },
    }),
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "api",
  });
  const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(`LISTENING ${url} ${performance.now().toFixed(1)}\n`);
  process.on("SIGTERM", () => void server.close().then(() => process.exit(0)));
}

/** Starts `kind` in a fresh Node process (same flags as this one) and resolves with its URL. */
function startChild(
  kind: string,
): Promise<{ child: ChildProcess; url: string; startedAt: bigint; listeningAfterMs: number }> {
  const startedAt = hrtime.bigint();
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--serve", kind], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      // The child reports how long after its own start it was listening (performance.now()).
      const m = /LISTENING (\S+) ([\d.]+)\n/.exec(out);
      if (m) resolve({ child, url: m[1]!, startedAt, listeningAfterMs: Number(m[2]) });
    });
    child.once("exit", (code) => reject(new Error(`server process exited with ${code}`)));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  await exited;
}

// ---- load generator -------------------------------------------------------------------------

function httpCall(agent: Agent, url: string, method: string, body?: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method,
        agent,
        headers: body ? { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } : {},
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (data += c));
        res.on("end", () =>
          res.statusCode === 200
            ? resolve(data)
            : reject(new Error(`${method} ${url}: ${res.statusCode} ${data.slice(0, 200)}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

type Flow = (agent: Agent, url: string) => Promise<void>;

const runFlow =
  (route: "/run" | "/run_sse"): Flow =>
  async (agent, url) => {
    const session = JSON.parse(await httpCall(agent, `${url}/apps/bench/users/u/sessions`, "POST")) as { id: string };
    const body = JSON.stringify({
      appName: "bench",
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text: "q" }] },
    });
    const answer = await httpCall(agent, `${url}${route}`, "POST", body);
    if (!answer.includes("The answer is 42.")) throw new Error(`unexpected answer: ${answer.slice(0, 200)}`);
  };

/** The agent flow's two requests, same methods and bodies, against the bare server. */
const bareFlow: Flow = async (agent, url) => {
  const session = JSON.parse(await httpCall(agent, `${url}/apps/bench/users/u/sessions`, "POST")) as { id: string };
  const body = JSON.stringify({
    appName: "bench",
    userId: "u",
    sessionId: session.id,
    newMessage: { role: "user", parts: [{ text: "q" }] },
  });
  const answer = await httpCall(agent, `${url}/run`, "POST", body);
  if (!answer.includes("The answer is 42.")) throw new Error(`unexpected answer: ${answer.slice(0, 200)}`);
};

interface Result {
  flowsPerSecond: number;
  p50: number;
  p99: number;
}

async function measure(flow: Flow, url: string, concurrency: number, seconds: number): Promise<Result> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const deadline = hrtime.bigint() + BigInt(Math.round(seconds * 1e9));
  const t0 = hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (hrtime.bigint() < deadline) {
        const s = hrtime.bigint();
        await flow(agent, url);
        latencies.push(Number(hrtime.bigint() - s) / 1e6);
      }
    }),
  );
  const wall = Number(hrtime.bigint() - t0) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  return { flowsPerSecond: latencies.length / wall, p50: pct(50), p99: pct(99) };
}

interface ColdStart {
  /** Spawn to first answer. */
  total: number;
  /** Inside the child: process start to listening (module loading included). */
  listening: number;
  /** Listening to the first answer (first request's lazy work: runner build, JIT). */
  firstAnswer: number;
}

async function coldStart(kind: "agent" | "bare"): Promise<ColdStart[]> {
  const runs: ColdStart[] = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const { child, url, startedAt, listeningAfterMs } = await startChild(kind);
    const ready = hrtime.bigint();
    const agent = new Agent({ keepAlive: false });
    if (kind === "agent") await runFlow("/run")(agent, url);
    else await bareFlow(agent, url);
    const end = hrtime.bigint();
    runs.push({
      total: Number(end - startedAt) / 1e6,
      listening: listeningAfterMs,
      firstAnswer: Number(end - ready) / 1e6,
    });
    await stopChild(child);
  }
  return runs.sort((a, b) => a.total - b.total);
}

async function main(): Promise<void> {
  console.log(
    `agentkit HTTP server overhead, Node ${process.version}, ${new Date().toISOString()}, ${SECONDS}s per cell`,
  );
  const agentServer = await startChild("agent");
  const bareServer = await startChild("bare");
  try {
    // Warm-up: JIT, connection pools, first-request lazy work.
    await measure(runFlow("/run"), agentServer.url, 4, 1);
    await measure(runFlow("/run_sse"), agentServer.url, 4, 0.5);
    await measure(bareFlow, bareServer.url, 4, 1);
    console.log("\n| concurrency | flow | flows/s | p50 ms | p99 ms | flows/s vs bare |");
    console.log("| ---: | --- | ---: | ---: | ---: | ---: |");
    for (const c of CONCURRENCY) {
      const bare = await measure(bareFlow, bareServer.url, c, SECONDS);
      const run = await measure(runFlow("/run"), agentServer.url, c, SECONDS);
      const sse = await measure(runFlow("/run_sse"), agentServer.url, c, SECONDS);
      const row = (name: string, r: Result) =>
        console.log(
          `| ${c} | ${name} | ${r.flowsPerSecond.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} ` +
            `| ${(r.flowsPerSecond / bare.flowsPerSecond).toFixed(3)} |`,
        );
      row("bare node:http, same 2 requests", bare);
      row("create session + /run", run);
      row("create session + /run_sse", sse);
    }
  } finally {
    await stopChild(agentServer.child);
    await stopChild(bareServer.child);
  }
  const agentCold = await coldStart("agent");
  const bareCold = await coldStart("bare");
  const median = (xs: ColdStart[]) => xs[Math.floor(xs.length / 2)]!;
  const show = (name: string, xs: ColdStart[]) => {
    const m = median(xs);
    console.log(
      `  ${name}: ${m.total.toFixed(0)} ms (min ${xs[0]!.total.toFixed(0)}, ` +
        `max ${xs[xs.length - 1]!.total.toFixed(0)}); ` +
        `in the child, start to listening ${m.listening.toFixed(0)} ms; listening to first ` +
        `answer ${m.firstAnswer.toFixed(1)} ms`,
    );
  };
  console.log(
    `\ncold start, spawn to first answer (median of ${COLD_RUNS}; includes Node start and tsx compiling sources):`,
  );
  show("agent server, first /run flow", agentCold);
  show("bare node:http, first flow   ", bareCold);
}

const serveAt = process.argv.indexOf("--serve");
if (serveAt >= 0) await serve(process.argv[serveAt + 1] ?? "agent");
else await main();
