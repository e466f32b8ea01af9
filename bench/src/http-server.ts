// HTTP: agentkit's server (createAgentServer, api mode, in-memory services) against ADK's own
// API server (AdkApiServer of @google/adk-devtools 2.0.0, what `adk api_server` runs, on ADK's
// in-memory services) and a bare node:http server (bare-http-server.ts: the same two requests,
// no agent), each in its own child process serving the bench agent (tool call, then answer).
// This process generates the load over keep-alive connections; every server reports its own
// CPU over IPC (process.cpuUsage deltas), so CPU figures never include the load generator,
// and the share of it spent off its main thread (thread-cpu.ts: mostly V8's collector).
// One flow = POST create session + POST /run.
//   - fresh: a newly spawned server's first --fresh-flows flows (what a short benchmark, an
//     autoscaled replica or a serverless start sees; module loading not counted, the first
//     requests' lazy work and JIT are); beside it, as a FIGURE, agentkit's server after its
//     start-up warm-up (what a replica serves once its readiness probe passes);
//   - warm: --seconds of flows after a warm-up until CPU per flow settles, on servers started once.
// Each is measured --rounds times, servers in rotating order; ratios are taken within a round
// and reported as median (min-max). Targets at concurrency 64: flows/s ≥ 10x ADK's; server CPU
// per flow ≤ 5x the bare server's CPU per request (2 requests per flow).
// Usage: pnpm bench:http [-- --rounds 3 --seconds 2 --warm-up-seconds 2 --warm-up-window 1 --max-warm-up-seconds 20
//   --fresh-flows 500 --concurrency 1,16,64
//   --routes /run,/run_sse --servers bare,agentkit,adk,baseline --baseline DIR --profile DIR]
// `baseline` is agentkit's server from another checkout (--baseline: its root, dependencies
// installed), so a change is compared with main in the same rounds.
import { join } from "node:path";
import { availableParallelism, loadavg } from "node:os";
import { listArg, numberArg, stringArg } from "./args.js";
import { runLoad, type LoadResult, type Route } from "./http-load.js";
import type { ServerKind } from "./server-child.js";
import { startServer, type ServerProcess } from "./server-process.js";
import { otherThreadsShare } from "./thread-cpu.js";
import { median, spread } from "./stats.js";
import { reportTarget } from "./targets.js";
import { runtimeLabel, warnIfDistStale } from "./runtime.js";
import { untilSettled } from "./until-settled.js";

const ROUNDS = numberArg("rounds", 3);
const SECONDS = numberArg("seconds", 2);
const WARM_UP_SECONDS = numberArg("warm-up-seconds", 2);
/** Warm-up goes on in windows of this length until the server's CPU per flow settles (see warmUp). */
const WARM_UP_WINDOW = numberArg("warm-up-window", 1);
const MAX_WARM_UP_SECONDS = numberArg("max-warm-up-seconds", 20);
const FRESH_FLOWS = numberArg("fresh-flows", 500);
const CONCURRENCY = listArg("concurrency", ["64"]).map(Number);
const ROUTES = listArg("routes", ["/run"]) as Route[];
const KINDS = listArg("servers", ["bare", "agentkit", "adk"]) as ServerKind[];
const PROFILE_DIR = stringArg("profile", "");
const BASELINE_DIR = stringArg("baseline", "");
const TARGET_CONCURRENCY = 64;

const LABEL: Record<ServerKind, string> = {
  bare: "bare node:http, same 2 requests",
  agentkit: "agentkit createAgentServer",
  adk: "ADK 2.0.0 AdkApiServer",
  baseline: `agentkit createAgentServer of ${BASELINE_DIR}`,
};

const WARMED_LABEL = "agentkit createAgentServer, after its start-up warm-up";

interface Cell extends LoadResult {
  /** Server CPU (user + system) per flow, µs. */
  cpuUsPerFlow: number;
  /** The share of that CPU spent off the main thread (V8's collector and compiler, libuv), if known. */
  otherThreadsShare: number | undefined;
}

async function measure(
  server: ServerProcess,
  options: { concurrency: number; route: Route; seconds?: number; flows?: number },
): Promise<Cell> {
  const before = await server.stats();
  const load = await runLoad(server.url, options);
  const after = await server.stats();
  return {
    ...load,
    cpuUsPerFlow: (after.cpuUs - before.cpuUs) / load.flows,
    otherThreadsShare: otherThreadsShare(before.threads, after.threads),
  };
}

const rotate = <T>(xs: T[], by: number): T[] => xs.map((_, i) => xs[(i + by) % xs.length]!);

/**
 * Per round: a newly spawned server of each kind, its first FRESH_FLOWS flows at concurrency 64.
 * With agentkit among the servers, also an agentkit server that ran its start-up warm-up first
 * (`warmed`): what a replica behind a readiness probe serves (`agentkit api-server` warms up
 * after listening, and `/readyz` answers 200 once it is done). A figure beside the target, which
 * stays defined on the server that warmed nothing.
 */
async function fresh(): Promise<{ cells: Map<ServerKind, Cell[]>; warmed: Cell[] }> {
  const cells = new Map<ServerKind, Cell[]>(KINDS.map((k) => [k, []]));
  const warmed: Cell[] = [];
  const firstFlows = (server: ServerProcess) =>
    measure(server, { concurrency: TARGET_CONCURRENCY, route: "/run", flows: FRESH_FLOWS });
  for (let round = 0; round < ROUNDS; round++) {
    for (const kind of rotate(KINDS, round)) {
      const server = await startServer(kind, { baselineDir: BASELINE_DIR });
      try {
        cells.get(kind)!.push(await firstFlows(server));
      } finally {
        await server.stop();
      }
    }
    if (!KINDS.includes("agentkit")) continue;
    const server = await startServer("agentkit", { warmUp: true });
    try {
      warmed.push(await firstFlows(server));
    } finally {
      await server.stop();
    }
  }
  return { cells, warmed };
}

type WarmKey = `${number} ${Route} ${ServerKind}`;

/**
 * Warms a server up until it is warm: at least --warm-up-seconds of flows, then on until the last
 * three windows cost within 10% of the cheapest one's CPU per flow (at most --max-warm-up-seconds;
 * `untilSettled`).
 * A fixed time does not fit every server: on this machine, with the load generator on the same
 * cores, each cost 10-60% more per flow after 2 s than once settled, and the three-window rule
 * took 5-14 s for the bare server, 7-13 s for agentkit's and 4-20 s for ADK's in the runs of
 * 2026-12-02. Returns the seconds it took.
 */
async function warmUp(server: ServerProcess, route: Route): Promise<number> {
  const window = async (seconds: number) =>
    (await measure(server, { concurrency: TARGET_CONCURRENCY, route, seconds })).cpuUsPerFlow;
  return untilSettled(window, {
    windowSeconds: WARM_UP_WINDOW,
    minSeconds: WARM_UP_SECONDS,
    maxSeconds: MAX_WARM_UP_SECONDS,
  });
}

/** Flows whose server promises are counted, one at a time, on each warm server after its rounds. */
const COUNTED_FLOWS = 100;

/**
 * Servers started once and warmed up; then per round, per concurrency and route, each server for
 * SECONDS; then the promises each server makes per `/run` flow (counted, so the same on every run
 * of the same code; the counting hook slows the server, so it comes after the timed cells).
 */
async function warm(): Promise<{
  cells: Map<WarmKey, Cell[]>;
  warmedUp: Map<string, number>;
  promisesPerFlow: Map<ServerKind, number>;
}> {
  const servers = await Promise.all(KINDS.map((k) => startServer(k, { baselineDir: BASELINE_DIR })));
  const cells = new Map<WarmKey, Cell[]>();
  /** How long each server warmed up on each route (s), for the report. */
  const warmedUp = new Map<string, number>();
  const promisesPerFlow = new Map<ServerKind, number>();
  try {
    for (const server of servers)
      for (const route of server.kind === "bare" ? (["/run"] as Route[]) : ROUTES)
        warmedUp.set(`${server.kind} ${route}`, await warmUp(server, route));
    for (let round = 0; round < ROUNDS; round++)
      for (const concurrency of CONCURRENCY)
        for (const route of ROUTES)
          for (const server of rotate(servers, round)) {
            if (server.kind === "bare" && route !== "/run") continue;
            const key: WarmKey = `${concurrency} ${route} ${server.kind}`;
            if (!cells.has(key)) cells.set(key, []);
            cells.get(key)!.push(await measure(server, { concurrency, route, seconds: SECONDS }));
          }
    for (const server of servers) {
      await server.promisesStart();
      await runLoad(server.url, { concurrency: 1, route: "/run", flows: COUNTED_FLOWS });
      promisesPerFlow.set(server.kind, (await server.promisesStop()) / COUNTED_FLOWS);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
  return { cells, warmedUp, promisesPerFlow };
}

/** Each round's server CPU per flow over the same round's bare CPU per request (a bare flow is two requests). */
function perBareRequest(cells: Cell[], bare: Cell[]): number[] {
  return cells.map((c, i) => c.cpuUsPerFlow / (bare[i]!.cpuUsPerFlow / 2));
}

/** Table rows for one set of cells; ratios per round against the same round's bare and ADK cells. */
function printRows(
  rows: { kind: ServerKind; label?: string; route: Route; cells: Cell[] }[],
  bare?: Cell[],
  adk?: Cell[],
) {
  for (const { kind, label = LABEL[kind], route, cells } of rows) {
    const cpuVsBare = bare ? perBareRequest(cells, bare) : [];
    const rateVsAdk = adk && kind !== "adk" ? cells.map((c, i) => c.flowsPerSecond / adk[i]!.flowsPerSecond) : [];
    const shares = cells.flatMap((c) => (c.otherThreadsShare === undefined ? [] : [100 * c.otherThreadsShare]));
    console.log(
      `| ${label}${route === "/run" ? "" : `, ${route}`} | ${spread(cells.map((c) => c.flowsPerSecond))} | ` +
        `${rateVsAdk.length ? spread(rateVsAdk, 2) : ""} | ${spread(cells.map((c) => c.cpuUsPerFlow))} | ` +
        `${shares.length ? `${spread(shares)}%` : ""} | ` +
        `${cpuVsBare.length ? spread(cpuVsBare, 2) : ""} | ${median(cells.map((c) => c.p50Ms)).toFixed(1)} | ` +
        `${median(cells.map((c) => c.p99Ms)).toFixed(1)} |`,
    );
  }
}

const HEADER =
  "| server | flows/s | flows/s vs ADK | server CPU µs / flow | of it off the main thread | CPU / flow vs bare CPU / request | p50 ms | p99 ms |\n" +
  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |";

function targets(phase: string, agentkit: Cell[] | undefined, adk: Cell[] | undefined, bare: Cell[] | undefined) {
  if (agentkit && adk) {
    const r = agentkit.map((c, i) => c.flowsPerSecond / adk[i]!.flowsPerSecond);
    reportTarget({
      name: `HTTP ${phase} flows/s at concurrency 64, agentkit / ADK`,
      value: median(r),
      bound: "at least",
      limit: 10,
      detail: `(rounds ${spread(r, 2)})`,
    });
  }
  if (agentkit && bare) {
    const r = perBareRequest(agentkit, bare);
    const adkR = adk && perBareRequest(adk, bare);
    reportTarget({
      name: `HTTP ${phase} server CPU per flow, agentkit / bare node:http per request`,
      value: median(r),
      bound: "at most",
      limit: 5,
      detail: `(rounds ${spread(r, 2)}${adkR ? `; ADK: ${median(adkR).toFixed(1)}x` : ""})`,
    });
  }
}

async function profile(): Promise<void> {
  const freshServer = await startServer("agentkit");
  try {
    await freshServer.profileStart();
    await runLoad(freshServer.url, { concurrency: TARGET_CONCURRENCY, route: "/run", flows: FRESH_FLOWS });
    await freshServer.profileStop(join(PROFILE_DIR, "http-fresh.cpuprofile"));
  } finally {
    await freshServer.stop();
  }
  const warmServer = await startServer("agentkit");
  try {
    await warmUp(warmServer, "/run");
    await warmServer.profileStart();
    await runLoad(warmServer.url, { concurrency: TARGET_CONCURRENCY, route: "/run", seconds: SECONDS });
    await warmServer.profileStop(join(PROFILE_DIR, "http-warm.cpuprofile"));
  } finally {
    await warmServer.stop();
  }
  console.log(`profiles of the agentkit server: ${join(PROFILE_DIR, "http-fresh.cpuprofile")}, http-warm.cpuprofile`);
}

async function main(): Promise<void> {
  warnIfDistStale();
  console.log(
    `HTTP servers, ${runtimeLabel()}, Node ${process.version}, ${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(1)} on ` +
      `${availableParallelism()} cores; ${ROUNDS} rounds; fresh: first ${FRESH_FLOWS} flows at concurrency ` +
      `${TARGET_CONCURRENCY}; warm: ${SECONDS}s per cell after a warm-up until CPU per flow settles ` +
      `(at least ${WARM_UP_SECONDS}s, at most ${MAX_WARM_UP_SECONDS}s)`,
  );
  if (PROFILE_DIR) return profile();
  const { cells: freshCells, warmed } = await fresh();
  console.log(
    `\nFresh server: its first ${FRESH_FLOWS} flows (create session + /run), concurrency ${TARGET_CONCURRENCY}`,
  );
  console.log(HEADER);
  printRows(
    KINDS.map((kind) => ({ kind, route: "/run" as Route, cells: freshCells.get(kind)! })),
    freshCells.get("bare"),
    freshCells.get("adk"),
  );
  if (warmed.length > 0)
    printRows(
      [{ kind: "agentkit", label: WARMED_LABEL, route: "/run", cells: warmed }],
      freshCells.get("bare"),
      freshCells.get("adk"),
    );
  const { cells: warmCells, warmedUp, promisesPerFlow } = await warm();
  console.log(
    `\nWarm-up until settled: ${[...warmedUp].map(([server, seconds]) => `${server} ${seconds.toFixed(1)}s`).join(", ")}`,
  );
  for (const concurrency of CONCURRENCY) {
    console.log(`\nWarm server, ${SECONDS}s per cell, concurrency ${concurrency}`);
    console.log(HEADER);
    const rows = ROUTES.flatMap((route) =>
      KINDS.filter((kind) => kind !== "bare" || route === "/run").map((kind) => ({
        kind,
        route,
        cells: warmCells.get(`${concurrency} ${route} ${kind}`)!,
      })),
    );
    for (const route of ROUTES)
      printRows(
        rows.filter((r) => r.route === route),
        warmCells.get(`${concurrency} /run bare`),
        warmCells.get(`${concurrency} ${route} adk`),
      );
  }
  console.log("");
  targets("fresh", freshCells.get("agentkit"), freshCells.get("adk"), freshCells.get("bare"));
  const bareFresh = freshCells.get("bare");
  if (warmed.length > 0 && bareFresh) {
    const r = perBareRequest(warmed, bareFresh);
    console.log(
      `FIGURE HTTP fresh server CPU per flow after its start-up warm-up, agentkit / bare node:http per request: ` +
        `${median(r).toFixed(3)} (rounds ${spread(r, 2)})`,
    );
  }
  const at = (kind: ServerKind) => warmCells.get(`${TARGET_CONCURRENCY} /run ${kind}`);
  targets("warm", at("agentkit"), at("adk"), at("bare"));
  const agentkitPromises = promisesPerFlow.get("agentkit");
  if (agentkitPromises !== undefined) {
    const others = KINDS.filter((kind) => kind !== "agentkit" && promisesPerFlow.has(kind)).map(
      (kind) => `${LABEL[kind]}: ${promisesPerFlow.get(kind)!.toFixed(1)}`,
    );
    console.log(
      `FIGURE HTTP server promises per flow (session create + /run), agentkit: ${agentkitPromises.toFixed(1)}` +
        (others.length > 0 ? ` (${others.join("; ")})` : ""),
    );
  }
  baselineFigure("fresh", freshCells.get("agentkit"), freshCells.get("baseline"));
  baselineFigure("warm", at("agentkit"), at("baseline"));
}

/** This checkout's server CPU per flow over the baseline's, round by round. */
function baselineFigure(phase: string, agentkit: Cell[] | undefined, baseline: Cell[] | undefined) {
  if (!agentkit || !baseline) return;
  const r = agentkit.map((c, i) => c.cpuUsPerFlow / baseline[i]!.cpuUsPerFlow);
  console.log(
    `FIGURE HTTP ${phase} server CPU per flow, agentkit / baseline: ${median(r).toFixed(3)} (rounds ${spread(r, 2)})`,
  );
}

await main();
