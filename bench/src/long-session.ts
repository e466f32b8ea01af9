// Time per invocation as ONE session grows from 100 to 5,000 turns (a turn = one invocation of
// the bench agent: user message, tool call, tool response, answer = 4 events), for agentkit in
// memory (InMemoryRunner), agentkit on SQLite (SqliteSessionService, a file in the temp dir)
// and ADK 2.0.0 in memory (its InMemoryRunner; ADK's database store needs ORM drivers this
// repo does not install). Full history goes into every model request (includeContents
// "default"), as a real conversation does. `agentkit-memory-traced` (and, when asked for,
// `agentkit-sqlite-traced`) adds the dev UI's trace recorder (what `agentkit web` runs: every
// model request recorded, content capture on). `agentkit-memory-analytics` (when asked for) adds
// `AnalyticsPlugin` with its defaults, writing its rows to a sink that drops them.
//   - Growth: by default the session is seeded between checkpoints with copies of one real
//     turn's events (fresh ids, paired call ids): through agentkit's own appendEvent, into
//     ADK's in-memory store directly (see adkSubject). Then up to --timed real invocations
//     (at least 3, for about --budget-ms) are timed at each checkpoint. `--grow real` runs
//     real invocations all the way instead (minutes; it checks the seeding shortcut).
//   - Each invocation's wall-clock time and this process's CPU time are recorded; the figures
//     are medians; the exponent is the least-squares slope of log(ms per invocation) against
//     log(turns) over the checkpoints (0 = flat, 1 = linear in the session's length).
// Targets (agentkit): exponent ≤ 0.1; at 5,000 turns ≤ 1 ms in memory, ≤ 3 ms on SQLite.
// Each subject first warms up on a scratch session (--warm-up-turns, at least --warm-up-ms).
// Usage: pnpm bench:long-session [-- --checkpoints 100,300,1000,2000,5000 --timed 20 --budget-ms 1000
//   --warm-up-turns 20 --warm-up-ms 1500
//   --subjects agentkit-memory,agentkit-memory-traced,agentkit-sqlite,agentkit-sqlite-traced,adk-memory,agentkit-memory-none,
//     agentkit-memory-analytics
//   --grow real --profile DIR]
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { cpuUsage, hrtime } from "node:process";
import { createEvent, InMemoryRunner, Runner, type EventInit } from "@agentkit/core";
import { SqliteSessionService } from "@agentkit/sessions/sqlite";
import { AnalyticsPlugin } from "@agentkit/plugins";
import { createTraceRecorder } from "@agentkit/server/devtools";
import {
  createEvent as createAdkEvent,
  InMemoryRunner as AdkInMemoryRunner,
  type CreateEventParams as AdkEventParams,
  type Session as AdkSession,
} from "@google/adk";
import { makeAdkBenchAgent } from "./adk-bench-agent.js";
import { listArg, numberArg, stringArg } from "./args.js";
import { makeBenchAgent } from "./bench-agent.js";
import { startCpuProfile } from "./cpu-profile.js";
import { logLogSlope, median } from "./stats.js";
import { reportTarget } from "./targets.js";
import { runtimeLabel, warnIfDistStale } from "./runtime.js";

const CHECKPOINTS = listArg("checkpoints", ["100", "300", "1000", "2000", "5000"]).map(Number);
const TIMED = numberArg("timed", 20);
const BUDGET_MS = numberArg("budget-ms", 1000);
const MIN_TIMED = 3;
const WARM_UP = numberArg("warm-up-turns", 20);
/**
 * And the warm-up goes on for at least this long: 20 turns leave agentkit's code short of the
 * optimizing compiler on some machines (its 100- and 300-turn cells then ran 3-7x slower than the
 * 2,000-turn one, hiding growth), and so did 300 ms on a 2-core machine on 2026-11-29 (0.42 ms
 * per invocation to 1,000 turns, then 0.06); 1,500 ms gave flat cells there from 100 turns on.
 * ADK's slower turns reach it in about as many turns.
 */
const WARM_UP_MS = numberArg("warm-up-ms", 1500);
/** The scratch session's length for the warm-up on a long history. */
const WARM_UP_TURNS = 500;
const SUBJECTS = listArg("subjects", ["agentkit-memory", "agentkit-memory-traced", "agentkit-sqlite", "adk-memory"]);
const GROW = stringArg("grow", "seeded");
const PROFILE_DIR = stringArg("profile", "");

const message = { role: "user", parts: [{ text: "q" }] };

/** One framework + store, seen through what the benchmark needs. */
interface Subject {
  label: string;
  createSession(): Promise<string>;
  invoke(sessionId: string): Promise<void>;
  /** All stored events of the session, as plain JSON. */
  storedEvents(sessionId: string): Promise<Record<string, unknown>[]>;
  /** Appends these events (plain JSON without id/timestamp) through the framework's own store. */
  append(sessionId: string, events: Record<string, unknown>[]): Promise<void>;
  deleteSession(sessionId: string): Promise<void>;
  close(): Promise<void>;
}

function agentkitSubject(
  store: "memory" | "sqlite",
  options: { includeContents?: "default" | "none"; traced?: boolean; analytics?: boolean } = {},
): Subject {
  const includeContents = options.includeContents ?? "default";
  const dir = store === "sqlite" ? mkdtempSync(join(tmpdir(), "agentkit-long-")) : "";
  const agent = makeBenchAgent({ includeContents });
  // `agentkit web`'s recorder with its defaults (content capture on, 64 MiB of traces).
  const recorder = options.traced ? createTraceRecorder() : undefined;
  // The analytics rows go to a sink that drops them: the plugin's cost, not a warehouse's.
  const analytics = options.analytics
    ? new AnalyticsPlugin({ sink: { writeRows: async () => {}, close: async () => {} } })
    : undefined;
  const plugins = [...(recorder ? [recorder.plugin] : []), ...(analytics ? [analytics] : [])];
  const runner =
    store === "memory"
      ? new InMemoryRunner({ agent, appName: "bench", plugins })
      : new Runner({
          agent,
          appName: "bench",
          sessionService: new SqliteSessionService({ path: join(dir, "sessions.db") }),
          plugins,
        });
  const sessions = runner.sessionService;
  const key = (sessionId: string) => ({ appName: "bench", userId: "u", sessionId });
  return {
    label:
      store === "memory"
        ? `agentkit, in memory${includeContents === "none" ? ', includeContents "none"' : ""}${recorder ? ", traced (agentkit web)" : ""}${analytics ? ", AnalyticsPlugin" : ""}`
        : `agentkit, SQLite${recorder ? ", traced (agentkit web)" : ""}`,
    createSession: async () => (await sessions.createSession({ appName: "bench", userId: "u" })).id,
    async invoke(sessionId) {
      for await (const _e of runner.runAsync({ userId: "u", sessionId, newMessage: message }));
    },
    async storedEvents(sessionId) {
      const s = await sessions.getSession(key(sessionId));
      return JSON.parse(JSON.stringify(s?.events ?? [])) as Record<string, unknown>[];
    },
    async append(sessionId, events) {
      const session = await sessions.getSession(key(sessionId));
      if (!session) throw new Error(`no session ${sessionId}`);
      for (const e of events) await sessions.appendEvent({ session, event: createEvent(e as unknown as EventInit) });
    },
    deleteSession: (sessionId) => sessions.deleteSession(key(sessionId)),
    async close() {
      await runner.close();
      await recorder?.shutdown();
      await sessions.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function adkSubject(): Subject {
  const runner = new AdkInMemoryRunner({ agent: makeAdkBenchAgent(), appName: "bench" });
  const sessions = runner.sessionService;
  const key = (sessionId: string) => ({ appName: "bench", userId: "u", sessionId });
  return {
    label: "ADK 2.0.0, in memory",
    createSession: async () => (await sessions.createSession({ appName: "bench", userId: "u" })).id,
    async invoke(sessionId) {
      for await (const _e of runner.runAsync({ userId: "u", sessionId, newMessage: message }));
    },
    async storedEvents(sessionId) {
      const s = await sessions.getSession(key(sessionId));
      return JSON.parse(JSON.stringify(s?.events ?? [])) as Record<string, unknown>[];
    },
    async append(sessionId, events) {
      // Into the store's own copy of the session, as its appendEvent leaves an event without
      // state changes: ADK's appendEvent looks for the event's id in the whole list (twice),
      // so seeding 20,000 events through it would take minutes. Timed invocations use the API.
      const store = (sessions as unknown as { sessions: Record<string, Record<string, Record<string, AdkSession>>> })
        .sessions;
      const stored = store.bench?.u?.[sessionId];
      if (!stored) throw new Error(`no session ${sessionId} in ADK's in-memory store`);
      for (const e of events) {
        const event = createAdkEvent(e as AdkEventParams);
        stored.events.push(event);
        stored.lastUpdateTime = event.timestamp;
      }
    },
    deleteSession: (sessionId) => sessions.deleteSession(key(sessionId)),
    close: async () => {},
  };
}

function makeSubject(name: string): Subject {
  switch (name) {
    case "agentkit-memory":
      return agentkitSubject("memory");
    case "agentkit-memory-traced":
      return agentkitSubject("memory", { traced: true });
    case "agentkit-memory-none":
      return agentkitSubject("memory", { includeContents: "none" });
    case "agentkit-memory-analytics":
      return agentkitSubject("memory", { analytics: true });
    case "agentkit-sqlite":
      return agentkitSubject("sqlite");
    case "agentkit-sqlite-traced":
      return agentkitSubject("sqlite", { traced: true });
    case "adk-memory":
      return adkSubject();
    default:
      throw new Error(`unknown subject ${name}`);
  }
}

/**
 * A seeder copying one real turn: its events with the ids, invocation id and function-call id
 * replaced (each copy pairs its own call and response), timestamps left to the framework.
 */
async function turnSeeder(subject: Subject): Promise<(turn: number) => Record<string, unknown>[]> {
  // Real turns first, then real turns on a long history, on a scratch session deleted
  // afterwards: the JIT has then compiled what the measured turns run, at every size.
  const scratch = await subject.createSession();
  const warmUpTurns = await warmUp(subject, scratch);
  const stored = await subject.storedEvents(scratch);
  if (stored.length !== warmUpTurns * 4)
    throw new Error(`${warmUpTurns} turns stored ${stored.length} events, expected 4 each`);
  const template = stored.slice(-4);
  const invocationId = String(template[0]!.invocationId);
  const parts = template.flatMap((e) => (e.content as { parts?: { functionCall?: { id?: string } }[] })?.parts ?? []);
  const callId = parts.find((p) => p.functionCall)?.functionCall?.id;
  if (!callId) throw new Error(`no function call id in ${JSON.stringify(template)}`);
  const json = JSON.stringify(template.map(({ id: _id, timestamp: _t, ...rest }) => rest));
  const seed = (turn: number) =>
    JSON.parse(json.replaceAll(callId, `seed-call-${turn}`).replaceAll(invocationId, `seed-inv-${turn}`)) as Record<
      string,
      unknown
    >[];
  const events: Record<string, unknown>[] = [];
  for (let turn = warmUpTurns; turn < WARM_UP_TURNS; turn++) events.push(...seed(-turn));
  await subject.append(scratch, events);
  await warmUp(subject, scratch);
  await subject.deleteSession(scratch);
  return seed;
}

/** At least WARM_UP turns on `sessionId`, for at least WARM_UP_MS; returns how many ran. */
async function warmUp(subject: Subject, sessionId: string): Promise<number> {
  const until = hrtime.bigint() + BigInt(WARM_UP_MS * 1e6);
  let turns = 0;
  for (; turns < WARM_UP || hrtime.bigint() < until; turns++) await subject.invoke(sessionId);
  return turns;
}

interface Checkpoint {
  turns: number;
  /** Wall-clock ms per invocation of the timed invocations, sorted. */
  ms: number[];
  /** CPU ms (user + system, all threads of this process) per invocation, sorted. */
  cpuMs: number[];
}

async function grow(name: string, profile: boolean): Promise<{ label: string; points: Checkpoint[] }> {
  const subject = makeSubject(name);
  try {
    const seed = await turnSeeder(subject);
    const sessionId = await subject.createSession();
    let turns = 0;
    const points: Checkpoint[] = [];
    const last = CHECKPOINTS[CHECKPOINTS.length - 1];
    for (const checkpoint of CHECKPOINTS) {
      const seedStart = hrtime.bigint();
      if (GROW === "real") for (; turns < checkpoint; turns++) await subject.invoke(sessionId);
      else {
        const events: Record<string, unknown>[] = [];
        for (; turns < checkpoint; turns++) events.push(...seed(turns));
        await subject.append(sessionId, events);
      }
      const seedMs = Number(hrtime.bigint() - seedStart) / 1e6;
      // Untimed: the first reads of a grown session.
      for (let i = 0; i < 2; i++, turns++) await subject.invoke(sessionId);
      const stopProfile = profile && checkpoint === last ? await startCpuProfile() : undefined;
      const ms: number[] = [];
      const cpuMs: number[] = [];
      const until = hrtime.bigint() + BigInt(BUDGET_MS * 1e6);
      for (let i = 0; i < TIMED && (i < MIN_TIMED || hrtime.bigint() < until); i++, turns++) {
        const cpu0 = cpuUsage();
        const t0 = hrtime.bigint();
        await subject.invoke(sessionId);
        ms.push(Number(hrtime.bigint() - t0) / 1e6);
        const cpu = cpuUsage(cpu0);
        cpuMs.push((cpu.user + cpu.system) / 1e3);
      }
      if (stopProfile) {
        const file = join(PROFILE_DIR, `long-session-${name}.cpuprofile`);
        await stopProfile(file);
        console.log(`  profile of the ${ms.length} invocations at ${checkpoint} turns: ${file}`);
      }
      ms.sort((a, b) => a - b);
      cpuMs.sort((a, b) => a - b);
      points.push({ turns: checkpoint, ms, cpuMs });
      console.log(
        `  ${subject.label}: ${checkpoint} turns, ${median(ms).toFixed(2)} ms per invocation (${ms[0]!.toFixed(2)}-${ms[ms.length - 1]!.toFixed(2)}), ` +
          `CPU ${median(cpuMs).toFixed(2)} ms (${ms.length} timed; growing to it took ${(seedMs / 1e3).toFixed(1)} s)`,
      );
    }
    const stored = await subject.storedEvents(sessionId);
    if (stored.length !== turns * 4)
      throw new Error(`${subject.label}: ${stored.length} events stored for ${turns} turns`);
    return { label: subject.label, points };
  } finally {
    await subject.close();
  }
}

const slopeOf = (points: Checkpoint[], pick: (p: Checkpoint) => number[]) =>
  logLogSlope(
    points.map((p) => p.turns),
    points.map((p) => median(pick(p))),
  );

async function main(): Promise<void> {
  warnIfDistStale();
  const subjects = PROFILE_DIR ? ["agentkit-memory", "agentkit-memory-traced", "agentkit-sqlite"] : SUBJECTS;
  console.log(
    `one session growing to ${CHECKPOINTS[CHECKPOINTS.length - 1]} turns (4 events each), ${GROW} growth, ` +
      `up to ${TIMED} timed invocations (${BUDGET_MS} ms) per checkpoint, Node ${process.version}, ` +
      `${new Date().toISOString()}, load average ${loadavg()[0]!.toFixed(1)} on ${availableParallelism()} cores, ${runtimeLabel()}`,
  );
  const results = [];
  for (const name of subjects) results.push({ name, ...(await grow(name, PROFILE_DIR !== "")) });
  if (PROFILE_DIR) return;
  const last = CHECKPOINTS[CHECKPOINTS.length - 1]!;
  console.log("\nms per invocation: wall-clock median (min) / CPU median; last column: log-log slope of the medians");
  console.log(`| turns in session | ${CHECKPOINTS.join(" | ")} | exponent wall / CPU |`);
  console.log(`| --- | ${CHECKPOINTS.map(() => "---:").join(" | ")} | ---: |`);
  for (const r of results) {
    const cells = r.points.map(
      (p) => `${median(p.ms).toFixed(2)} (${p.ms[0]!.toFixed(2)}) / ${median(p.cpuMs).toFixed(2)}`,
    );
    const exponents = `${slopeOf(r.points, (p) => p.ms).toFixed(2)} / ${slopeOf(r.points, (p) => p.cpuMs).toFixed(2)}`;
    console.log(`| ${r.label} | ${cells.join(" | ")} | ${exponents} |`);
  }
  const adk = results.find((x) => x.name === "adk-memory");
  for (const r of results) {
    if (!r.name.startsWith("agentkit") || r.name.endsWith("-none")) continue;
    const end = r.points[r.points.length - 1]!;
    const adkEnd = adk?.points[adk.points.length - 1];
    reportTarget({
      name: `long session growth exponent, ${r.label}, ${CHECKPOINTS[0]}-${last} turns`,
      value: slopeOf(r.points, (p) => p.ms),
      bound: "at most",
      limit: 0.1,
      unit: "",
      detail:
        `(CPU: ${slopeOf(r.points, (p) => p.cpuMs).toFixed(2)}` +
        (adk ? `; ADK in memory: ${slopeOf(adk.points, (p) => p.ms).toFixed(2)})` : ")"),
    });
    reportTarget({
      name: `long session ms per invocation at ${last} turns, ${r.label}`,
      value: median(end.ms),
      bound: "at most",
      limit: r.name.startsWith("agentkit-sqlite") ? 3 : 1,
      unit: "ms",
      detail:
        `(CPU ${median(end.cpuMs).toFixed(2)} ms` +
        (adkEnd
          ? `; ADK in memory: ${median(adkEnd.ms).toFixed(2)} ms, x${(median(r.points.at(-1)!.ms) / median(adkEnd.ms)).toFixed(3)})`
          : ")"),
    });
  }
}

await main();
