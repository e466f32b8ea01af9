// `pnpm bench` at its smallest sizes, as a test: every benchmark of the performance issue still
// runs to its end (each checks its own answers: the HTTP load its response bodies, the cold start
// its first answer's text) and reports every target and figure with a finite number. Whether a
// target passes is the benchmarks' business (bench/README.md), not this test's: at these sizes
// the figures mean nothing, so only their presence and form are checked.
import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const benchDir = fileURLToPath(new URL("..", import.meta.url));

/**
 * As `pnpm bench` runs them: agentkit from its built dist (turbo builds it before this package's
 * tests, turbo.json), the benchmarks' own TypeScript on Node's type stripping.
 */
const DIST_RUNTIME = ["--disable-warning=ExperimentalWarning", "--import", "./src/ts-resolve-hook.ts"];

/** Options every benchmark reads (each ignores the others'): one short round of each. */
const SMALLEST = [
  ["--rounds", "1"],
  ["--seconds", "0.2"],
  ["--warm-up", "20"],
  ["--warm-up-seconds", "0.2"],
  ["--warm-up-window", "0.1"],
  ["--max-warm-up-seconds", "0.4"],
  ["--warm-up-ms", "100"],
  ["--fresh-flows", "40"],
  ["--timed", "2"],
  ["--budget-ms", "50"],
  ["--turns", "150"],
  ["--sessions-count", "100"],
  ["--runs", "1"],
].flat();

/** Every target `pnpm bench` reports (by the start of its name), once each in the summary. */
const TARGETS = [
  "in-process invocations/s, agentkit / ADK",
  "in-process CPU per invocation, agentkit / ADK",
  "long session growth exponent, agentkit, in memory",
  "long session ms per invocation at 5000 turns, agentkit, in memory",
  "long session growth exponent, agentkit, in memory, traced (agentkit web)",
  "long session ms per invocation at 5000 turns, agentkit, in memory, traced (agentkit web)",
  "long session growth exponent, agentkit, SQLite",
  "long session ms per invocation at 5000 turns, agentkit, SQLite",
  "HTTP fresh flows/s at concurrency 64, agentkit / ADK",
  "HTTP fresh server CPU per flow, agentkit / bare node:http per request",
  "HTTP warm flows/s at concurrency 64, agentkit / ADK",
  "HTTP warm server CPU per flow, agentkit / bare node:http per request",
  "server RSS after 150 turns / after 100 turns, agentkit, in memory",
  "server RSS after 150 turns / after 100 turns, agentkit, in memory, traced (agentkit web)",
  "cold start, spawn → first answer, agentkit api-server (sources, in-memory services)",
  "cold start, spawn → first answer, agentkit api-server (sources, SQLite + file services (the defaults))",
  // The built dist exists: turbo builds it before this package's tests (turbo.json).
  "cold start, spawn → first answer, agentkit api-server (built dist, bundled (AGENTKIT_RUNTIME=dist), in-memory)",
  "cold start, spawn → first answer, agentkit api-server (built dist, SQLite + file services (the defaults))",
];

const FIGURES = [
  "in-process CPU per invocation, agentkit runner alone / ADK's bench agent",
  "in-process CPU per invocation, agentkit runner alone / agentkit's bench agent",
  "in-process promises per invocation, agentkit",
  "HTTP server promises per flow (session create + /run), agentkit",
  "server RSS once idle after 100 one-turn sessions, agentkit, in memory",
  "server RSS after its idle memory reduction, after 100 one-turn sessions, agentkit, in memory",
  "server RSS once idle after 100 one-turn sessions, ADK 2.0.0, in memory",
  "in-process CPU per invocation, agentkit / ADK, sessions deleted after each batch",
  "in-process invocations/s, agentkit / ADK, sessions deleted after each batch",
  "HTTP fresh server CPU per flow after its start-up warm-up, agentkit / bare node:http per request",
];

/** `TARGET <name>: <figure>[unit] [detail] (target ≥|≤ <limit>[unit]): PASS|FAIL`. */
const TARGET_LINE =
  /^TARGET (.+?): (-?\d+(?:\.\d+)?)(?:x| ms)? .*\(target [≤≥] \d+(?:\.\d+)?(?:x| ms)?\): (PASS|FAIL)$/;
const FIGURE_LINE = /^FIGURE (.+?): (-?\d+(?:\.\d+)?)(?: MB)?(?: |$)/;

/** Runs one benchmark script of `src/` with `args`, as `pnpm bench` runs it; resolves when it exits. */
function runBench(script: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...DIST_RUNTIME, `src/${script}`, ...args], {
    cwd: benchDir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("pnpm bench", () => {
  it("runs every benchmark to its end and reports each target and figure with a finite number", async () => {
    const { code, stdout, stderr } = await runBench("run-all.ts", SMALLEST);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    // Each benchmark says what it measured: the built dist, as users install it.
    // The in-process benchmark runs twice: as the targets define it, and with --drop-sessions.
    const runs = {
      "in-process runner overhead, ": 2,
      "HTTP servers, ": 1,
      "server memory ": 1,
      "one session growing": 1,
    };
    for (const [header, count] of Object.entries(runs))
      expect(stdout.split("\n").filter((l) => l.startsWith(header))).toEqual(
        Array.from({ length: count }, () => expect.stringContaining("agentkit from its built dist")),
      );
    expect(stdout).toMatch(
      /^in-process runner overhead, .*; each batch's sessions deleted after it \(--drop-sessions\)$/m,
    );
    // The in-process benchmark warms each framework until settled and says how long that took.
    expect(stdout).toMatch(/^Warm-up until settled: agentkit \d+\.\ds, adk \d+\.\ds, runner \d+\.\ds$/m);
    const summary = stdout.slice(stdout.lastIndexOf("=== summary"));
    expect(summary.startsWith("=== summary")).toBe(true);
    const lines = summary.split("\n").slice(1).filter(Boolean);

    const targets = lines.filter((l) => l.startsWith("TARGET "));
    for (const line of targets) expect(line).toMatch(TARGET_LINE);
    const named = targets.map((l) => TARGET_LINE.exec(l)!);
    // Each line belongs to the longest name it starts with ("…, in memory, traced …" is not "…, in memory").
    const nameOf = (line: string) =>
      TARGETS.filter((name) => line.startsWith(name)).reduce<string | undefined>(
        (longest, name) => (longest && longest.length >= name.length ? longest : name),
        undefined,
      );
    for (const name of TARGETS) expect(named.filter((m) => nameOf(m[1]!) === name).map((m) => m[1])).toHaveLength(1);
    expect(named).toHaveLength(TARGETS.length);
    for (const m of named) expect(Number.isFinite(Number(m[2]))).toBe(true);

    const figures = lines.filter((l) => l.startsWith("FIGURE ")).map((l) => FIGURE_LINE.exec(l));
    for (const m of figures) expect(m).not.toBeNull();
    for (const name of FIGURES) {
      const found = figures.find((m) => m![1] === name);
      expect(found?.[1]).toBe(name);
      expect(Number(found![2])).toBeGreaterThan(0);
    }
  }, 900_000);
});

describe("bench:runner --baseline DIR --processes N", () => {
  it("runs each checkout in processes of its own and reports their ratio (this checkout against itself)", async () => {
    const repoRoot = fileURLToPath(new URL("../..", import.meta.url));
    const { code, stdout, stderr } = await runBench("runner-overhead.ts", [
      ...["--baseline", repoRoot, "--processes", "1", "--rounds", "1", "--seconds", "0.2", "--warm-up", "20"],
      ...["--warm-up-window", "0.1", "--max-warm-up-seconds", "0.2"],
    ]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toMatch(/^pair 1: agentkit \d+ µs, baseline \d+ µs per invocation$/m);
    const figure = /^FIGURE in-process CPU per invocation, agentkit \/ baseline, separate processes: (\d+\.\d+) /m.exec(
      stdout,
    );
    expect(Number(figure?.[1])).toBeGreaterThan(0);
  }, 120_000);
});

describe("bench:first-flows", () => {
  it("measures each server's first flows after its readiness and reports them as figures", async () => {
    const { code, stdout, stderr } = await runBench("first-flows.ts", ["--runs", "1"]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    // One table row per server, six groups of flows each, every cell a positive number of ms.
    const rows = stdout.split("\n").filter((l) => /^\| (agentkit api-server|bare node:http)/.test(l));
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      const cells = row
        .split("|")
        .slice(2, -1)
        .map((c) => Number(c.trim()));
      expect(cells).toHaveLength(6);
      for (const ms of cells) expect(ms).toBeGreaterThan(0);
    }
    const figures = [...stdout.matchAll(/^FIGURE first flow(?: after warm-up)?, (.+?): (\d+\.\d) ms/gm)];
    expect(figures.map((m) => m[1])).toEqual([
      "agentkit api-server, in-memory services",
      "agentkit api-server, SQLite + file services (the defaults)",
      "bare node:http",
    ]);
    for (const m of figures) expect(Number(m[2])).toBeGreaterThan(0);
  }, 180_000);
});

describe("bench:dev-server", () => {
  it("measures each dev server configuration's flows and reports them as figures", async () => {
    const { code, stdout, stderr } = await runBench("dev-server-flows.ts", [
      "--runs",
      "1",
      "--flows",
      "20",
      "--warm-up-flows",
      "5",
    ]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const figures = [...stdout.matchAll(/^FIGURE server CPU per flow, (.+?): (\d+\.\d\d) ms$/gm)];
    expect(figures.map((m) => m[1])).toEqual([
      "agentkit web (reload, traces; SQLite + files in .agentkit/)",
      "agentkit web --no-reload",
      "agentkit api-server (same services)",
      "agentkit web, yaml_pipeline (a SequentialAgent)",
    ]);
    for (const m of figures) expect(Number(m[2])).toBeGreaterThan(0);
  }, 120_000);
});
