// Cold start of the `agentkit api-server` command as a user runs it: spawn
// `node apps/dev-server/bin/agentkit.mjs api-server examples/agents --port 0` → the startup
// banner (listening) → a session created and a first `/run` of the `assistant` example
// answered by its offline demo model. Each configuration runs `--runs` times (default 7),
// interleaved, and reports median / min / max, plus the child's own phases (bin/agentkit.mjs
// with AGENTKIT_STARTUP_TIMING=1: Node bootstrap, module hooks ready, CLI modules loaded,
// listening). Configurations: the default `source` runtime (Node's own TypeScript support, with
// its bundle cache of the workspace's sources, built first if the sources changed) on in-memory
// and on the default SQLite + file services, the same without the bundle cache (a figure), the built dist when it exists (`pnpm build`:
// one bundle per package entry, scripts/bundle-dist.mjs), and the
// `tsx` runtime (a figure only: the fallback for agents that need tsx, not a target).
// The baseline, in the same interleaved runs: a bare node:http server started the same way
// (`node bench/src/bare-http-server.mjs --port 0`: plain JavaScript, Node's built-ins only),
// its banner, then the same two requests. Target: agentkit's spawn → first answer ≤ 2.5x the
// bare server's (ratios taken run by run, median reported), for every configuration.
// Usage: pnpm bench:cold-start [-- --runs 7]
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OFFLINE_ENV } from "@agentkit/test-support/offline-models";
import { numberArg } from "./args.js";
import {
  agentkitBin as bin,
  bareServerScript as bareServer,
  exampleAgentsDir as agentsDir,
  inMemoryServices as inMemory,
  onDiskServices as onDisk,
  prepareSourceBundles,
  agentFlow,
  type CliServer,
  startCliServer,
} from "./cli-commands.js";
import { median, spread } from "./stats.js";
import { repoRoot } from "./repo-root.js";
import { reportTarget } from "./targets.js";

const RUNS = numberArg("runs", 7);
const distBuilt = [
  "packages/core/dist/index.js",
  "packages/server/dist/index.js",
  "apps/dev-server/dist/main.js",
].every((file) => existsSync(join(repoRoot, file)));

interface Config {
  name: string;
  env: Record<string, string>;
  /** The command line after `node`. */
  args: (dataDir: string) => string[];
  app: string;
  /** Text the first answer must contain. */
  expect: string;
  /** Reported as a figure, not held to the target. */
  figureOnly?: boolean;
  /**
   * What the child's startup timing must say it ran (`hooks ready (…)`): a run of anything else
   * (a source start that did not find its bundles) fails the benchmark. The bare server: "".
   */
  runtime: string;
}

const agentkit = (
  name: string,
  runtime: string,
  env: Record<string, string>,
  services: (dir: string) => string[],
  figureOnly = false,
): Config => ({
  name,
  runtime,
  env,
  figureOnly,
  args: (dir) => [bin, "api-server", agentsDir, "--port", "0", ...services(dir)],
  app: "assistant",
  expect: "demo",
});
const BARE: Config = {
  name: "bare node:http (baseline), same 2 requests",
  runtime: "",
  env: {},
  args: () => [bareServer, "--port", "0"],
  app: "bench",
  expect: "The answer is 42.",
};
const CONFIGS: Config[] = [
  agentkit("sources, in-memory services", "source, bundled", {}, inMemory),
  agentkit("sources, SQLite + file services (the defaults)", "source, bundled", {}, onDisk),
  agentkit(
    "sources without the bundle cache (AGENTKIT_SOURCE_BUNDLES=0), in-memory (figure)",
    "source",
    { AGENTKIT_SOURCE_BUNDLES: "0" },
    inMemory,
    true,
  ),
  ...(distBuilt
    ? [
        agentkit(
          "built dist, bundled (AGENTKIT_RUNTIME=dist), in-memory",
          "dist",
          { AGENTKIT_RUNTIME: "dist" },
          inMemory,
        ),
        agentkit("built dist, SQLite + file services (the defaults)", "dist", { AGENTKIT_RUNTIME: "dist" }, onDisk),
      ]
    : []),
  agentkit(
    "sources through tsx (AGENTKIT_RUNTIME=tsx), in-memory (figure)",
    "tsx",
    { AGENTKIT_RUNTIME: "tsx" },
    inMemory,
    true,
  ),
  BARE,
];

interface Sample {
  /** What the child's startup timing says it ran (`source, bundled`, `dist`, ...). */
  runtime: string;
  listening: number;
  firstAnswer: number;
  /** The child's CPU time (user + system, ms) at its banner and after the first answer; NaN without /proc. */
  cpuListening: number;
  cpuFirstAnswer: number;
  phases: Record<string, number>;
}

/**
 * A process's CPU time so far (user + system), from /proc/<pid>/stat (Linux; clock ticks of
 * 10 ms). Wall time moves by 1.5x between runs on a shared machine; the child's CPU time much less.
 */
function cpuMs(pid: number | undefined): number {
  try {
    // Fields after the command name (which may hold spaces): state is 3rd, utime 14th, stime 15th.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

async function once(config: Config): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentkit-cold-"));
  const env = { ...process.env, ...OFFLINE_ENV, AGENTKIT_STARTUP_TIMING: "1", ...config.env };
  const t0 = performance.now();
  let server: CliServer | undefined;
  try {
    server = await startCliServer(config.args(dataDir), env);
    const listening = performance.now() - t0;
    const cpuListening = cpuMs(server.pid);
    await agentFlow(server.url, config.app, config.expect);
    const firstAnswer = performance.now() - t0;
    const cpuFirstAnswer = cpuMs(server.pid);
    const { err } = server.output();
    const phases: Record<string, number> = {};
    for (const m of err.matchAll(/(node bootstrap|hooks ready \([^)]*\)|modules loaded|listening) (\d+) ms/g))
      phases[m[1]!.replace(/ \([^)]*\)/, "")] = Number(m[2]);
    const runtime = /hooks ready \(([^)]*)\)/.exec(err)?.[1] ?? "";
    return { runtime, listening, firstAnswer, cpuListening, cpuFirstAnswer, phases };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const range = (xs: number[]) => spread(xs, 0);

async function main(): Promise<void> {
  console.log(
    `agentkit api-server cold start, Node ${process.version}, ${new Date().toISOString()}, ${RUNS} runs per configuration (interleaved)`,
  );
  if (!distBuilt) console.log("(no built dist: run `pnpm build` to measure AGENTKIT_RUNTIME=dist too)");
  await prepareSourceBundles();
  // One throw-away run per configuration: the runtimes' caches of compiled TypeScript (the source
  // runtime's, tsx's), Node's compile cache and the OS file cache warm up.
  for (const config of CONFIGS) await once(config);
  const samples = new Map<Config, Sample[]>(CONFIGS.map((c) => [c, []]));
  for (let i = 0; i < RUNS; i++) for (const config of CONFIGS) samples.get(config)!.push(await once(config));
  // Each figure is of what it names: the sources' of their bundle cache (what every start after a
  // warm one loads), the dist's of the build, and so on.
  for (const config of CONFIGS)
    for (const sample of samples.get(config)!)
      if (sample.runtime !== config.runtime)
        throw new Error(`${config.name}: ran "${sample.runtime}", not "${config.runtime}"`);
  const bare = samples.get(BARE)!;
  /** First-answer time over the bare server's in the same iteration, per run. */
  const ratios = (config: Config) => samples.get(config)!.map((s, i) => s.firstAnswer / bare[i]!.firstAnswer);
  console.log("\nms, median (min-max)");
  console.log(
    "| configuration | spawn → listening | spawn → first /run answered | vs bare | child CPU at listening / first answer | in the child: Node bootstrap / hooks ready / modules loaded / listening |",
  );
  console.log("| --- | ---: | ---: | ---: | ---: | --- |");
  for (const config of CONFIGS) {
    const xs = samples.get(config)!;
    const phase = (k: string) => median(xs.map((s) => s.phases[k] ?? Number.NaN)).toFixed(0);
    console.log(
      `| ${config.name} | ${range(xs.map((s) => s.listening))} | ${range(xs.map((s) => s.firstAnswer))} | ` +
        `${spread(ratios(config), 2)} | ` +
        `${range(xs.map((s) => s.cpuListening))} / ${range(xs.map((s) => s.cpuFirstAnswer))} | ` +
        (config === BARE
          ? "- |"
          : `${phase("node bootstrap")} / ${phase("hooks ready")} / ${phase("modules loaded")} / ${phase("listening")} |`),
    );
  }
  console.log("");
  for (const config of CONFIGS.filter((c) => c !== BARE && !c.figureOnly))
    reportTarget({
      name: `cold start, spawn → first answer, agentkit api-server (${config.name}) / bare node:http`,
      value: median(ratios(config)),
      bound: "at most",
      limit: 2.5,
      detail: `(runs ${spread(ratios(config), 2)}; ${median(samples.get(config)!.map((s) => s.firstAnswer)).toFixed(0)} ms vs ${median(bare.map((s) => s.firstAnswer)).toFixed(0)} ms)`,
    });
  // The same comparison in the child's CPU time, which a loaded machine disturbs less than wall time.
  const cpuRatios = (config: Config) => samples.get(config)!.map((s, i) => s.cpuFirstAnswer / bare[i]!.cpuFirstAnswer);
  if (bare.every((s) => Number.isFinite(s.cpuFirstAnswer)))
    for (const config of CONFIGS.filter((c) => c !== BARE))
      console.log(
        `FIGURE cold start, child CPU to first answer, agentkit api-server (${config.name}) / bare node:http: ` +
          `${median(cpuRatios(config)).toFixed(3)} (runs ${spread(cpuRatios(config), 2)}; ` +
          `${median(samples.get(config)!.map((s) => s.cpuFirstAnswer)).toFixed(0)} ms vs ${median(bare.map((s) => s.cpuFirstAnswer)).toFixed(0)} ms)`,
      );
}

await main();
