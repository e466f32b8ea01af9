// Server memory (RSS of the server's own process, read over IPC after global.gc(): the
// servers run with --expose-gc):
//   1. long session: one session grows through /run to 100 turns, then to --turns (2,000);
//      RSS after each (target: the ratio within 1.5x);
//   2. many sessions: --sessions-count (10,000) one-turn sessions (create + /run, concurrency
//      16), then RSS once idle (the load finished, gc run), beside the fresh server's RSS; for
//      agentkit also once its idle memory reduction ran (`reduceMemoryWhenIdle`, after
//      --idle-memory-ms of quiet, 1000 here against the server's default of 30 s).
// agentkit's server on in-memory services (add SQLite with --stores memory,sqlite), ADK's
// AdkApiServer beside it where it finishes in reasonable time (many sessions; its long
// session only with --adk-long: every ADK turn deep-copies the whole session). The long session
// also runs on agentkit's server with the dev UI's trace recorder, as `agentkit web` serves it
// (every model request recorded; the recorder is bounded by traces, spans and bytes).
// agentkit's long-session servers also report RSS once their idle memory reduction ran (a FIGURE).
// Usage: pnpm bench:memory [-- --turns 2000 --sessions-count 10000 --stores memory,sqlite --servers agentkit,adk --adk-long --idle-memory-ms 1000]
import { mkdtempSync, rmSync } from "node:fs";
import { Agent } from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { flag, listArg, numberArg } from "./args.js";
import { createSession, flow, runLoad } from "./http-load.js";
import type { ChildStats, ServerKind } from "./server-child.js";
import { startServer, type ServerProcess } from "./server-process.js";
import { reportTarget } from "./targets.js";
import { runtimeLabel, warnIfDistStale } from "./runtime.js";

const TURNS = numberArg("turns", 2000);
const FIRST = 100;
// The long session is compared with itself at FIRST turns: a shorter one has nothing to compare.
if (!(TURNS > FIRST)) throw new Error(`--turns must be more than ${FIRST} (got ${TURNS})`);
const SESSIONS = numberArg("sessions-count", 10000);
const STORES = listArg("stores", ["memory"]);
const SERVERS = listArg("servers", ["agentkit", "adk"]) as ServerKind[];
const ADK_LONG = flag("adk-long");
/** agentkit's idle memory reduction in part 2: after this much quiet (the server's default is 30 s). */
const IDLE_MEMORY_MS = numberArg("idle-memory-ms", 1000);

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

interface Subject {
  label: string;
  kind: ServerKind;
  sessions: string;
  /** agentkit: runs traced as `agentkit web` does (server-child.ts `--traced`). */
  traced?: boolean;
  cleanup?: () => void;
}

function subjects(): Subject[] {
  const out: Subject[] = [];
  for (const kind of SERVERS)
    for (const store of STORES) {
      if (kind === "adk" && store !== "memory") continue;
      if (store === "sqlite") {
        const dir = mkdtempSync(join(tmpdir(), "agentkit-mem-"));
        out.push({
          label: `${kind}, SQLite`,
          kind,
          sessions: `sqlite:${join(dir, "sessions.db")}`,
          cleanup: () => rmSync(dir, { recursive: true, force: true }),
        });
      } else out.push({ label: `${kind === "adk" ? "ADK 2.0.0" : kind}, in memory`, kind, sessions: "memory" });
    }
  return out;
}

/** The long session's subjects: agentkit in memory is measured traced too (`agentkit web`). */
function longSessionSubjects(): Subject[] {
  const traced: Subject[] = SERVERS.includes("agentkit")
    ? [{ label: "agentkit, in memory, traced (agentkit web)", kind: "agentkit", sessions: "memory", traced: true }]
    : [];
  return [...subjects(), ...traced];
}

async function withServer<T>(
  subject: Subject,
  fn: (server: ServerProcess) => Promise<T>,
  idleMemoryMs?: number,
): Promise<T> {
  const server = await startServer(subject.kind, {
    sessions: subject.sessions,
    exposeGc: true,
    ...(idleMemoryMs !== undefined ? { idleMemoryMs } : {}),
    ...(subject.traced ? { traced: true } : {}),
  });
  try {
    return await fn(server);
  } finally {
    await server.stop();
    subject.cleanup?.();
  }
}

async function longSession(
  subject: Subject,
): Promise<{ fresh: ChildStats; after100: ChildStats; afterAll: ChildStats; reduced?: ChildStats }> {
  // agentkit: then the server's idle memory reduction, as a developer's pause at the dev UI brings it.
  const reduces = subject.kind === "agentkit";
  return withServer(
    subject,
    async (server) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const fresh = await server.gc();
        const sessionId = await createSession(agent, server.url);
        for (let turn = 1; turn <= FIRST; turn++) await flow(agent, server.url, "/run", sessionId);
        const after100 = await server.gc();
        for (let turn = FIRST + 1; turn <= TURNS; turn++) await flow(agent, server.url, "/run", sessionId);
        const afterAll = await server.gc();
        return {
          fresh,
          after100,
          afterAll,
          ...(reduces ? { reduced: await afterIdleReduction(server, afterAll) } : {}),
        };
      } finally {
        agent.destroy();
      }
    },
    reduces ? IDLE_MEMORY_MS : undefined,
  );
}

async function manySessions(subject: Subject): Promise<{
  fresh: number;
  idle: number;
  heapIdle: number;
  heapTotal: number;
  newSpace: number;
  seconds: number;
  reduced?: ChildStats;
}> {
  const reduces = subject.kind === "agentkit";
  return withServer(
    subject,
    async (server) => {
      const fresh = (await server.gc()).rss;
      const load = await runLoad(server.url, { concurrency: 16, flows: SESSIONS, route: "/run" });
      const idle = await server.gc();
      return {
        fresh,
        idle: idle.rss,
        heapIdle: idle.heapUsed,
        heapTotal: idle.heapTotal,
        newSpace: idle.newSpace,
        seconds: load.seconds,
        ...(reduces ? { reduced: await afterIdleReduction(server, idle) } : {}),
      };
    },
    reduces ? IDLE_MEMORY_MS : undefined,
  );
}

/**
 * The server's stats once its idle memory reduction ran (read every 100 ms; it runs between one
 * and two idle periods after the last request). Throws when it has not run within 10 idle periods.
 */
async function afterIdleReduction(server: ServerProcess, idle: ChildStats): Promise<ChildStats> {
  const before = idle.idleMemoryReductions ?? 0;
  const deadline = Date.now() + 10 * IDLE_MEMORY_MS + 5000;
  for (;;) {
    const stats = await server.stats();
    if ((stats.idleMemoryReductions ?? 0) > before) return stats;
    if (Date.now() > deadline) throw new Error("the server ran no idle memory reduction within 10 idle periods");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function main(): Promise<void> {
  warnIfDistStale();
  console.log(
    `server memory (RSS after global.gc() in the server process), ${runtimeLabel()}, Node ${process.version}, ${new Date().toISOString()}, ` +
      `load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores`,
  );
  const all = longSessionSubjects();
  console.log(`\n1. One session growing to ${TURNS} turns over /run (4 events per turn)`);
  console.log(
    `| server | fresh RSS | RSS after ${FIRST} turns | RSS after ${TURNS} turns | ratio | heap used after ${FIRST} / ${TURNS} turns | ` +
      `V8 heap committed (of which young generation) after ${FIRST} / ${TURNS} turns | ` +
      `RSS after its idle memory reduction (${IDLE_MEMORY_MS} ms of quiet), ratio |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  const ratios: { label: string; ratio: number; reduced?: number }[] = [];
  for (const subject of all) {
    if (subject.kind === "adk" && !ADK_LONG) continue;
    const r = await longSession(subject);
    const ratio = r.afterAll.rss / r.after100.rss;
    ratios.push({ label: subject.label, ratio, ...(r.reduced ? { reduced: r.reduced.rss / r.after100.rss } : {}) });
    console.log(
      `| ${subject.label} | ${mb(r.fresh.rss)} | ${mb(r.after100.rss)} | ${mb(r.afterAll.rss)} | ${ratio.toFixed(2)} | ` +
        `${mb(r.after100.heapUsed)} / ${mb(r.afterAll.heapUsed)} | ` +
        `${mb(r.after100.heapTotal)} (${mb(r.after100.newSpace)}) / ${mb(r.afterAll.heapTotal)} (${mb(r.afterAll.newSpace)}) | ` +
        `${r.reduced ? `${mb(r.reduced.rss)}, ${(r.reduced.rss / r.after100.rss).toFixed(2)}` : "none (ADK has no such step)"} |`,
    );
  }
  console.log(`\n2. ${SESSIONS} one-turn sessions (create + /run, concurrency 16), then idle`);
  console.log(
    "| server | fresh RSS | RSS once idle | heap used once idle | V8 heap committed (young generation) once idle | " +
      `RSS after its idle memory reduction (${IDLE_MEMORY_MS} ms of quiet) | load took |`,
  );
  console.log("| --- | ---: | ---: | ---: | ---: | ---: | ---: |");
  const idle: { label: string; rss: number; reduced?: number }[] = [];
  for (const subject of subjects()) {
    const r = await manySessions(subject);
    idle.push({ label: subject.label, rss: r.idle, ...(r.reduced ? { reduced: r.reduced.rss } : {}) });
    const reduced = r.reduced
      ? `${mb(r.reduced.rss)} (young generation ${mb(r.reduced.newSpace)})`
      : "none (ADK has no such step)";
    console.log(
      `| ${subject.label} | ${mb(r.fresh)} | ${mb(r.idle)} | ${mb(r.heapIdle)} | ${mb(r.heapTotal)} (${mb(r.newSpace)}) | ` +
        `${reduced} | ${r.seconds.toFixed(1)} s |`,
    );
  }
  console.log("");
  for (const r of ratios.filter((x) => !x.label.startsWith("ADK")))
    reportTarget({
      name: `server RSS after ${TURNS} turns / after ${FIRST} turns, ${r.label}`,
      value: r.ratio,
      bound: "at most",
      limit: 1.5,
    });
  for (const r of ratios)
    if (r.reduced !== undefined)
      console.log(
        `FIGURE server RSS after ${TURNS} turns and its idle memory reduction / after ${FIRST} turns, ${r.label}: ${r.reduced.toFixed(3)}`,
      );
  for (const r of idle) {
    console.log(`FIGURE server RSS once idle after ${SESSIONS} one-turn sessions, ${r.label}: ${mb(r.rss)}`);
    if (r.reduced !== undefined) {
      console.log(
        `FIGURE server RSS after its idle memory reduction, after ${SESSIONS} one-turn sessions, ${r.label}: ${mb(r.reduced)}`,
      );
    }
  }
}

await main();
