// In-process runner overhead, agentkit against Google's ADK (@google/adk 2.0.0) in the same run:
// the same agent (one zod-typed FunctionTool, an instant model answering a tool call then text:
// 4 events per invocation), each framework's InMemoryRunner, every invocation on a fresh
// session (created outside the timed batches).
// First each framework runs until its CPU per invocation settles (V8 compiles for several
// thousand invocations); then each round runs each framework for --seconds on a new runner
// after --warm-up invocations and a full collection (the order alternates between rounds); the
// ratios are taken within a round and the table gives their median (min-max).
// Targets: invocations/s ≥ 5x ADK's; CPU per invocation ≤ 0.2x ADK's. Beside them, agentkit's
// runner alone (three-events-agent.ts: no model, no tool) as FIGURE lines: the part of the CPU
// target every agent pays before any LLM work; and the promises an invocation makes (counted,
// so the same on every run of the same code), agentkit's beside ADK's.
// `--baseline DIR` compares this checkout's agentkit with another checkout's (DIR: its root, its
// dependencies installed) instead of ADK, in the same process: the other checkout's core and
// bench agent are loaded from its sources, so before and after a change share the machine's
// load round by round (a FIGURE line, not a target; `--rounds 20 --seconds 0.5` interleaves finely).
// `--batches N` with `--baseline`: instead of rounds, N pairs of one batch each (--batch
// invocations, 50 by default), order alternating, CPU compared pair by pair: on a shared machine
// the load changes less within a pair of ~10 ms batches than between half-second rounds.
// `--processes N` with `--baseline`: N pairs of child processes instead, one per checkout
// (process-pairs.ts), so each side's garbage collection is its own: in one heap, what one side
// keeps is promoted by collections the other side may trigger. This is the comparison for a
// change in what a run allocates or keeps.
// Usage: pnpm bench:runner [-- --rounds 5 --seconds 2 --warm-up 500 --warm-up-window 0.5 --warm-up-seconds 1 --max-warm-up-seconds 15 --only agentkit|adk|runner --profile DIR --baseline DIR --batches 300 --batch 50 --processes 6]
import { availableParallelism, loadavg } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { cpuUsage, hrtime } from "node:process";
import { type BaseAgent, InMemoryRunner } from "@agentkit/core";
import { InMemoryRunner as AdkInMemoryRunner } from "@google/adk";
import { makeAdkBenchAgent } from "./adk-bench-agent.js";
import { flag, numberArg, stringArg } from "./args.js";
import { makeBenchAgent } from "./bench-agent.js";
import { collectGarbage } from "./collect-garbage.js";
import { makeThreeEventsAgent } from "./three-events-agent.js";
import { startCpuProfile } from "./cpu-profile.js";
import { compareInProcesses } from "./process-pairs.js";
import { countPromises } from "./promise-count.js";
import { median, spread } from "./stats.js";
import { reportTarget } from "./targets.js";
import { packageEntry, runtimeLabel, warnIfDistStale } from "./runtime.js";
import { untilSettled } from "./until-settled.js";

const ROUNDS = numberArg("rounds", 5);
const SECONDS = numberArg("seconds", 2);
/** Invocations each round's new runner makes before its timed batches. */
const WARM_UP = numberArg("warm-up", 500);
/** Before the rounds, each framework runs in windows of this length until its CPU per invocation settles (see settle). */
const WARM_UP_WINDOW = numberArg("warm-up-window", 0.5);
const MIN_WARM_UP_SECONDS = numberArg("warm-up-seconds", 1);
const MAX_WARM_UP_SECONDS = numberArg("max-warm-up-seconds", 15);
const ONLY = stringArg("only", "");
const PROFILE_DIR = stringArg("profile", "");
const BASELINE_DIR = stringArg("baseline", "");
const BATCH = 100;
/**
 * `--drop-sessions`: each batch's sessions are deleted after it (outside the timing), so the
 * stores keep nothing between batches: what the runtimes cost apart from keeping every session
 * in memory (as a database-backed store would not). Its ratios are FIGURE lines, not targets.
 */
const DROP_SESSIONS = flag("drop-sessions");
const BATCHES = numberArg("batches", 0);
const PAIR_BATCH = numberArg("batch", 50);
const PROCESSES = numberArg("processes", 0);

/** `runner`: agentkit with an agent that calls no model and no tool (the runner's own floor). */
type Framework = "agentkit" | "adk" | "baseline" | "runner";

const LABELS: Record<Framework, string> = {
  agentkit: "agentkit",
  adk: "ADK 2.0.0",
  baseline: `agentkit of ${BASELINE_DIR}`,
  runner: "agentkit, runner alone (3 text events, no model, no tool)",
};

/** What both runners offer the benchmark: a session, then one invocation on it. */
interface BenchRunner {
  createSession(): Promise<string>;
  /** Runs one invocation to the end; returns the events it produced (persisted user message included). */
  invoke(sessionId: string): Promise<number>;
  deleteSession(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

const message = { role: "user", parts: [{ text: "q" }] };

function agentkitRunner(
  Runner: typeof InMemoryRunner = InMemoryRunner,
  makeAgent: () => BaseAgent = makeBenchAgent,
): BenchRunner {
  const runner = new Runner({ agent: makeAgent(), appName: "bench" });
  return {
    createSession: async () => (await runner.sessionService.createSession({ appName: "bench", userId: "u" })).id,
    deleteSession: (sessionId) => runner.sessionService.deleteSession({ appName: "bench", userId: "u", sessionId }),
    async invoke(sessionId) {
      let n = 1; // the user event is persisted, not yielded
      for await (const _e of runner.runAsync({ userId: "u", sessionId, newMessage: message })) n++;
      return n;
    },
    close: () => runner.close(),
  };
}

/**
 * The other checkout's runner and bench agent, in this process's runtime (its built dist, or its
 * sources under tsx): its own `@agentkit/core` and zod, which the bench agent resolves from that
 * checkout's folders.
 */
async function baselineRunner(dir: string): Promise<BenchRunner> {
  const root = resolve(dir);
  const from = (path: string) => pathToFileURL(join(root, path)).href;
  const [core, agent] = (await Promise.all([
    import(pathToFileURL(packageEntry(root, "core")).href),
    import(from("bench/src/bench-agent.ts")),
  ])) as [typeof import("@agentkit/core"), typeof import("./bench-agent.js")];
  return agentkitRunner(core.InMemoryRunner, agent.makeBenchAgent);
}

function adkRunner(): BenchRunner {
  const runner = new AdkInMemoryRunner({ agent: makeAdkBenchAgent(), appName: "bench" });
  return {
    createSession: async () => (await runner.sessionService.createSession({ appName: "bench", userId: "u" })).id,
    deleteSession: (sessionId) => runner.sessionService.deleteSession({ appName: "bench", userId: "u", sessionId }),
    async invoke(sessionId) {
      let n = 1;
      for await (const _e of runner.runAsync({ userId: "u", sessionId, newMessage: message })) n++;
      return n;
    },
    close: async () => {},
  };
}

/** Each framework's runner, made per round. */
const RUNNERS: Record<Framework, () => BenchRunner | Promise<BenchRunner>> = {
  agentkit: () => agentkitRunner(),
  runner: () => agentkitRunner(InMemoryRunner, makeThreeEventsAgent),
  baseline: () => baselineRunner(BASELINE_DIR),
  adk: adkRunner,
};

interface Throughput {
  invocationsPerSecond: number;
  cpuUsPerInvocation: number;
  eventsPerInvocation: number;
}

/** Runs batches of invocations (fresh sessions made between batches) for `seconds` of timed work. */
async function throughput(framework: Framework, seconds: number, profileFile?: string): Promise<Throughput> {
  const runner = await RUNNERS[framework]();
  try {
    for (let i = 0; i < WARM_UP; i++) await runner.invoke(await runner.createSession());
    // The garbage of earlier rounds (the other framework's runner and every session it kept) is
    // collected now, not during this round's timed batches: without it, each round paid for the
    // round before it, and the ratios moved with the order of the frameworks.
    collectGarbage();
    const stopProfile = profileFile ? await startCpuProfile() : undefined;
    const measured = await timedBatches(runner, seconds);
    await stopProfile?.(profileFile!);
    return measured;
  } finally {
    await runner.close();
  }
}

/** Batches of BATCH invocations on fresh sessions (made outside the timing) until `seconds` of timed work. */
async function timedBatches(runner: BenchRunner, seconds: number): Promise<Throughput> {
  let wallNs = 0n;
  let cpuUs = 0;
  let invocations = 0;
  let events = 0;
  while (Number(wallNs) / 1e9 < seconds) {
    const sessions: string[] = [];
    for (let i = 0; i < BATCH; i++) sessions.push(await runner.createSession());
    const cpu0 = cpuUsage();
    const t0 = hrtime.bigint();
    for (const id of sessions) events += await runner.invoke(id);
    wallNs += hrtime.bigint() - t0;
    const cpu = cpuUsage(cpu0);
    cpuUs += cpu.user + cpu.system;
    invocations += sessions.length;
    if (DROP_SESSIONS) for (const id of sessions) await runner.deleteSession(id);
  }
  return {
    invocationsPerSecond: invocations / (Number(wallNs) / 1e9),
    cpuUsPerInvocation: cpuUs / invocations,
    eventsPerInvocation: events / invocations,
  };
}

/** Invocations whose promises are counted, on sessions made before the count starts. */
const COUNTED_INVOCATIONS = 100;

/**
 * Promises one invocation makes (the session made outside the count, as in the timed batches),
 * averaged over COUNTED_INVOCATIONS after a warm-up: the same on every run of the same code.
 */
async function promisesPerInvocation(framework: Framework): Promise<number> {
  const runner = await RUNNERS[framework]();
  try {
    for (let i = 0; i < 20; i++) await runner.invoke(await runner.createSession());
    const sessions: string[] = [];
    for (let i = 0; i < COUNTED_INVOCATIONS; i++) sessions.push(await runner.createSession());
    const count = await countPromises(async () => {
      for (const id of sessions) await runner.invoke(id);
    });
    return count / COUNTED_INVOCATIONS;
  } finally {
    await runner.close();
  }
}

/**
 * Runs a framework until its CPU per invocation settles: windows of --warm-up-window seconds,
 * until the last three are within 10% of the cheapest of them (at least --warm-up-seconds, at most
 * --max-warm-up-seconds). Compiled code outlives the runner, so the rounds' runners start warm.
 * A fixed 500 invocations was not warm: V8 goes on compiling each framework's functions for
 * several thousand invocations (over a second of compiler CPU each), which landed in the first
 * rounds. Returns the seconds it took.
 */
async function settle(framework: Framework): Promise<number> {
  const runner = await RUNNERS[framework]();
  try {
    const window = async (seconds: number) => (await timedBatches(runner, seconds)).cpuUsPerInvocation;
    return await untilSettled(window, {
      windowSeconds: WARM_UP_WINDOW,
      minSeconds: MIN_WARM_UP_SECONDS,
      maxSeconds: MAX_WARM_UP_SECONDS,
    });
  } finally {
    await runner.close();
  }
}

/**
 * `--batches`: this checkout and the baseline alternate batch by batch, both runners live the
 * whole time; returns each pair's CPU ratio (agentkit / baseline) and the two CPU totals.
 */
async function interleavedBatches(): Promise<{ ratios: number[]; cpu: { agentkit: number; baseline: number } }> {
  const runners = { agentkit: agentkitRunner(), baseline: await baselineRunner(BASELINE_DIR) };
  const cpu = { agentkit: 0, baseline: 0 };
  const ratios: number[] = [];
  try {
    for (const runner of Object.values(runners)) {
      for (let i = 0; i < WARM_UP; i++) await runner.invoke(await runner.createSession());
    }
    for (let pair = 0; pair < BATCHES; pair++) {
      const order = pair % 2 ? (["baseline", "agentkit"] as const) : (["agentkit", "baseline"] as const);
      const used = { agentkit: 0, baseline: 0 };
      for (const name of order) {
        const runner = runners[name];
        const sessions: string[] = [];
        for (let i = 0; i < PAIR_BATCH; i++) sessions.push(await runner.createSession());
        const cpu0 = cpuUsage();
        for (const id of sessions) await runner.invoke(id);
        const spent = cpuUsage(cpu0);
        used[name] = spent.user + spent.system;
      }
      cpu.agentkit += used.agentkit;
      cpu.baseline += used.baseline;
      ratios.push(used.agentkit / used.baseline);
    }
  } finally {
    await Promise.all(Object.values(runners).map((r) => r.close()));
  }
  return { ratios, cpu };
}

async function main(): Promise<void> {
  warnIfDistStale();
  console.log(
    `in-process runner overhead, ${runtimeLabel()} vs ${BASELINE_DIR ? LABELS.baseline : "@google/adk 2.0.0"}, Node ${process.version}, ${new Date().toISOString()}, ` +
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores, ` +
      (BATCHES > 0
        ? `${BATCHES} interleaved pairs of ${PAIR_BATCH} invocations`
        : `${ROUNDS} rounds of ${SECONDS}s per framework`) +
      (DROP_SESSIONS ? "; each batch's sessions deleted after it (--drop-sessions)" : ""),
  );
  if (PROFILE_DIR) {
    const file = join(PROFILE_DIR, "in-process.cpuprofile");
    await settle("agentkit");
    const r = await throughput("agentkit", SECONDS, file);
    console.log(`agentkit: ${r.invocationsPerSecond.toFixed(0)} invocations/s while profiling; profile: ${file}`);
    return;
  }
  if (PROCESSES > 0) {
    if (!BASELINE_DIR) throw new Error("--processes compares with --baseline DIR");
    await compareInProcesses(BASELINE_DIR, PROCESSES, ROUNDS, SECONDS);
    return;
  }
  if (BATCHES > 0) {
    if (!BASELINE_DIR) throw new Error("--batches compares with --baseline DIR");
    const { ratios, cpu } = await interleavedBatches();
    const perInvocation = (us: number) => (us / BATCHES / PAIR_BATCH).toFixed(1);
    console.log(
      `CPU µs per invocation over ${BATCHES} pairs of ${PAIR_BATCH}: agentkit ${perInvocation(cpu.agentkit)}, baseline ${perInvocation(cpu.baseline)}`,
    );
    console.log(
      `FIGURE in-process CPU per invocation, agentkit / baseline, interleaved batches: ${median(ratios).toFixed(3)} ` +
        `(pairs ${spread(ratios, 3)}; totals ${(cpu.agentkit / cpu.baseline).toFixed(3)})`,
    );
    return;
  }
  if (ONLY !== "" && ONLY !== "agentkit" && ONLY !== "adk" && ONLY !== "runner")
    throw new Error(`--only agentkit|adk|runner, got ${ONLY}`);
  const frameworks: Framework[] = BASELINE_DIR
    ? ["agentkit", "baseline"]
    : ONLY === ""
      ? ["agentkit", "adk", "runner"]
      : [ONLY];
  const warmedUp: string[] = [];
  for (const f of frameworks) warmedUp.push(`${f} ${(await settle(f)).toFixed(1)}s`);
  console.log(`Warm-up until settled: ${warmedUp.join(", ")}`);
  const results: Record<Framework, Throughput[]> = { agentkit: [], adk: [], baseline: [], runner: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...frameworks].reverse() : frameworks;
    for (const f of order) results[f].push(await throughput(f, SECONDS));
  }
  console.log("\n| framework | invocations/s | CPU µs / invocation | CPU µs / event | events / invocation |");
  console.log("| --- | ---: | ---: | ---: | ---: |");
  for (const f of frameworks) {
    const rs = results[f];
    console.log(
      `| ${LABELS[f]} | ${spread(rs.map((r) => r.invocationsPerSecond))} | ` +
        `${spread(rs.map((r) => r.cpuUsPerInvocation))} | ${spread(rs.map((r) => r.cpuUsPerInvocation / r.eventsPerInvocation))} | ` +
        `${median(rs.map((r) => r.eventsPerInvocation)).toFixed(1)} |`,
    );
  }
  if (frameworks.length < 2) return;
  if (BASELINE_DIR) {
    const cpu = results.agentkit.map((r, i) => r.cpuUsPerInvocation / results.baseline[i]!.cpuUsPerInvocation);
    const rate = results.agentkit.map((r, i) => r.invocationsPerSecond / results.baseline[i]!.invocationsPerSecond);
    console.log(
      `\nFIGURE in-process CPU per invocation, agentkit / baseline: ${median(cpu).toFixed(3)} (rounds ${spread(cpu, 3)})`,
    );
    console.log(
      `FIGURE in-process invocations/s, agentkit / baseline: ${median(rate).toFixed(3)} (rounds ${spread(rate, 3)})`,
    );
    return;
  }
  const rate = results.agentkit.map((r, i) => r.invocationsPerSecond / results.adk[i]!.invocationsPerSecond);
  const cpu = results.agentkit.map((r, i) => r.cpuUsPerInvocation / results.adk[i]!.cpuUsPerInvocation);
  console.log(
    `\nper-round ratios agentkit / ADK: invocations/s ${spread(rate, 2)}; CPU per invocation ${spread(cpu, 3)}`,
  );
  if (DROP_SESSIONS) {
    // Not the targets' setting (the stores keep their sessions there): figures beside them.
    console.log(
      `FIGURE in-process CPU per invocation, agentkit / ADK, sessions deleted after each batch: ${median(cpu).toFixed(3)} ` +
        `(rounds ${spread(cpu, 3)})`,
    );
    console.log(
      `FIGURE in-process invocations/s, agentkit / ADK, sessions deleted after each batch: ${median(rate).toFixed(2)} ` +
        `(rounds ${spread(rate, 2)})`,
    );
    return;
  }
  reportTarget({
    name: "in-process invocations/s, agentkit / ADK",
    value: median(rate),
    bound: "at least",
    limit: 5,
    detail: `(rounds ${spread(rate, 2)})`,
  });
  reportTarget({
    name: "in-process CPU per invocation, agentkit / ADK",
    value: median(cpu),
    bound: "at most",
    limit: 0.2,
    detail: `(rounds ${spread(cpu, 3)})`,
  });
  // How much of the CPU target the runner alone takes: no model, no tool, no request built.
  const floor = results.runner.map((r, i) => r.cpuUsPerInvocation / results.adk[i]!.cpuUsPerInvocation);
  const share = results.runner.map((r, i) => r.cpuUsPerInvocation / results.agentkit[i]!.cpuUsPerInvocation);
  console.log(
    `FIGURE in-process CPU per invocation, agentkit runner alone / ADK's bench agent: ${median(floor).toFixed(3)} ` +
      `(rounds ${spread(floor, 3)}; ${median(results.runner.map((r) => r.cpuUsPerInvocation)).toFixed(0)} µs)`,
  );
  console.log(
    `FIGURE in-process CPU per invocation, agentkit runner alone / agentkit's bench agent: ${median(share).toFixed(3)} ` +
      `(rounds ${spread(share, 3)})`,
  );
  // Counted after the rounds: the hook that counts slows every promise while it is on.
  const promises = {
    agentkit: await promisesPerInvocation("agentkit"),
    adk: await promisesPerInvocation("adk"),
    runner: await promisesPerInvocation("runner"),
  };
  console.log(
    `FIGURE in-process promises per invocation, agentkit: ${promises.agentkit.toFixed(1)} ` +
      `(ADK 2.0.0: ${promises.adk.toFixed(1)}; agentkit's runner alone: ${promises.runner.toFixed(1)})`,
  );
}

await main();
