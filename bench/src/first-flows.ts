// `pnpm bench:first-flows`: what a warmed server's first agent flows cost. Spawns
// `agentkit api-server examples/agents` (in-memory services, and SQLite + file services), waits
// until `/readyz` answers 200 (its warm-up is done) and its CPU is quiet, then runs flows one at a
// time (create a session, then `/run` of the `assistant` example, answered by its offline demo
// model) and reads the server's CPU time, every thread, around each group of flows: the 1st, 2nd
// and 3rd flow, then per flow over flows 4-13, 14-113 and 114-413. The bare node:http server,
// started the same way, is the baseline (the same two requests). Runs interleave the servers.
// Figures only: how far a first flow is from a settled one, for agentkit and for a server that
// does nothing (Node's own HTTP code also compiles on first use).
// Usage: pnpm bench:first-flows [-- --runs 5]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OFFLINE_ENV } from "@agentkit/test-support/offline-models";
import { numberArg } from "./args.js";
import {
  agentkitBin,
  bareServerScript,
  exampleAgentsDir,
  inMemoryServices,
  onDiskServices,
  prepareSourceBundles,
  agentFlow,
  type CliServer,
  startCliServer,
} from "./cli-commands.js";
import { median, spread } from "./stats.js";
import { processCpuMs } from "./thread-cpu.js";

const RUNS = numberArg("runs", 5);
/** Flows per group; the first three are single flows. */
const GROUPS = [1, 1, 1, 10, 100, 300];
const LABELS = ["1st", "2nd", "3rd", "4-13", "14-113", "114-413"];

interface Server {
  name: string;
  args: (dataDir: string) => string[];
  /** Whether it has `/readyz` (agentkit) or is ready at its banner (bare). */
  readiness: boolean;
  app: string;
  /** Text the `/run` answer must contain. */
  expect: string;
}

const agentkit = (name: string, services: (dir: string) => string[]): Server => ({
  name,
  args: (dir) => [agentkitBin, "api-server", exampleAgentsDir, "--port", "0", ...services(dir)],
  readiness: true,
  app: "assistant",
  expect: "demo",
});
const SERVERS: Server[] = [
  agentkit("agentkit api-server, in-memory services", inMemoryServices),
  agentkit("agentkit api-server, SQLite + file services (the defaults)", onDiskServices),
  {
    name: "bare node:http (baseline), same 2 requests",
    args: () => [bareServerScript, "--port", "0"],
    readiness: false,
    app: "bench",
    expect: "The answer is 42.",
  },
];

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until the process's CPU stops moving (two 50 ms windows under 0.5 ms each), at most 5 s. */
async function quiet(pid: number): Promise<void> {
  let calm = 0;
  for (let waited = 0; calm < 2 && waited < 5000; waited += 50) {
    const before = processCpuMs(pid);
    await pause(50);
    calm = processCpuMs(pid) - before < 0.5 ? calm + 1 : 0;
  }
}

/** One server from spawn to stop: CPU ms per flow of each group. */
async function once(server: Server): Promise<number[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentkit-first-flows-"));
  let started: CliServer | undefined;
  try {
    started = await startCliServer(server.args(dataDir), { ...process.env, ...OFFLINE_ENV });
    const { pid, url } = started;
    if (server.readiness) {
      const deadline = Date.now() + 60_000;
      while ((await fetch(`${url}/readyz`)).status !== 200) {
        if (Date.now() > deadline) throw new Error(`${server.name}: /readyz never answered 200`);
        await pause(50);
      }
    }
    await quiet(pid);
    const perFlow: number[] = [];
    for (const n of GROUPS) {
      const before = processCpuMs(pid);
      for (let i = 0; i < n; i++) await agentFlow(url, server.app, server.expect);
      perFlow.push((processCpuMs(pid) - before) / n);
    }
    return perFlow;
  } finally {
    await started?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  console.log(
    `First flows of a warmed server, Node ${process.version}, ${new Date().toISOString()}, ` +
      `${RUNS} runs per server (interleaved); server CPU (every thread) per flow, ms, median (min-max)`,
  );
  if (Number.isNaN(processCpuMs(process.pid))) throw new Error("needs Linux's /proc/<pid>/task/*/schedstat");
  await prepareSourceBundles();
  // One throw-away run each: the OS file cache and Node's compile cache warm up.
  for (const server of SERVERS) await once(server);
  const samples = new Map<Server, number[][]>(SERVERS.map((s) => [s, []]));
  for (let i = 0; i < RUNS; i++) for (const server of SERVERS) samples.get(server)!.push(await once(server));
  console.log(`\n| server | ${LABELS.map((l) => `flow ${l}`).join(" | ")} |`);
  console.log(`| --- |${LABELS.map(() => " ---: |").join("")}`);
  const column = (server: Server, g: number) => samples.get(server)!.map((run) => run[g]!);
  for (const server of SERVERS)
    console.log(`| ${server.name} | ${LABELS.map((_, g) => spread(column(server, g), 1)).join(" | ")} |`);
  console.log("");
  const bare = SERVERS.at(-1)!;
  for (const server of SERVERS.slice(0, -1)) {
    const first = median(column(server, 0));
    console.log(
      `FIGURE first flow after warm-up, ${server.name}: ${first.toFixed(1)} ms, ` +
        `${(first / median(column(bare, 0))).toFixed(2)}x the bare server's first flow, ` +
        `${(first / median(column(server, GROUPS.length - 1))).toFixed(1)}x its own flows ${LABELS.at(-1)}`,
    );
  }
  console.log(
    `FIGURE first flow, bare node:http: ${median(column(bare, 0)).toFixed(1)} ms, ` +
      `${(median(column(bare, 0)) / median(column(bare, GROUPS.length - 1))).toFixed(1)}x its own flows ${LABELS.at(-1)}`,
  );
}

await main();
