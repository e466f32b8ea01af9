import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REQUEST_INPUT_FUNCTION_CALL_NAME } from "@agentkit/core";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";

// A resumable app paused or cut off in one process continues in another on the same store: each
// step below runs in its own child process, which is killed with SIGKILL once it reported, so
// only what the session store holds carries a run from one step to the next.

const APP = join(import.meta.dirname, "fixtures", "resumable-app.ts");
const children: ChildProcess[] = [];
let cluster: PostgresCluster;
const dir = mkdtempSync(join(tmpdir(), "agentkit-resume-"));

beforeAll(async () => {
  cluster = await startPostgres();
}, 60_000);
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface Report {
  pending?: { id: string; name: string };
  outputs?: [string, unknown][];
  charging?: boolean;
}

/** Runs one step in a new process; resolves with its first report and kills it (SIGKILL). */
async function step(
  store: string,
  logFile: string,
  name: string,
  answer?: unknown,
  env: Record<string, string> = {},
): Promise<Report> {
  const child = spawn(
    process.execPath,
    [
      "--conditions=@agentkit/source",
      "--import",
      "tsx",
      APP,
      store,
      logFile,
      name,
      ...(answer ? [JSON.stringify(answer)] : []),
    ],
    {
      cwd: join(import.meta.dirname, ".."),
      env: { ...process.env, NODE_OPTIONS: "", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  children.push(child);
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const report = await new Promise<Report>((resolve, reject) => {
    let buffer = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      const line = buffer.split("\n")[0];
      if (buffer.includes("\n") && line) resolve(JSON.parse(line) as Report);
    });
    void exited.then(() => reject(new Error(`step ${name} exited before it reported: ${stderr}`)));
  });
  child.kill("SIGKILL");
  await exited;
  return report;
}

const logOf = (file: string) => readFileSync(file, "utf8").trim().split("\n");

const backends: [string, () => Promise<string>][] = [
  ["SQLite", async () => `sqlite://${join(dir, `sessions-${Math.random().toString(36).slice(2)}.db`)}`],
  ["PostgreSQL", async () => cluster.createDatabase(`resume_${Math.random().toString(36).slice(2, 10)}`)],
];

describe.each(backends)("resumable runs across process restarts (%s)", (_name, newStore) => {
  it("pauses in one process and completes in another when the answers arrive; nothing runs twice", async () => {
    const store = await newStore();
    const logFile = join(dir, `log-${Math.random().toString(36).slice(2)}`);
    writeFileSync(logFile, "");

    const first = await step(store, logFile, "start");
    expect(first.pending).toEqual({ id: "c1", name: "ask_human" });

    const second = await step(store, logFile, "answer-human", {
      id: "c1",
      name: "ask_human",
      response: { answer: "yes" },
    });
    expect(second.pending?.name).toBe(REQUEST_INPUT_FUNCTION_CALL_NAME);
    expect(second.outputs).toEqual([["prepare", { amount: 42 }]]);

    const third = await step(store, logFile, "answer-approval", {
      id: second.pending!.id,
      name: REQUEST_INPUT_FUNCTION_CALL_NAME,
      response: { approved: true },
    });
    expect(third.pending).toBeUndefined();
    expect(third.outputs).toEqual([
      ["approve", { approved: true }],
      ["to_charge", { amount: 42 }],
      ["charge", { charged: true }],
      ["notify", "charged and notified"],
    ]);
    expect(logOf(logFile)).toEqual(["prepare", 'charge {"amount":42}', "notify"]);
  }, 120_000);

  it("a process killed during a tool call is resumed by another: the call is reported, never repeated", async () => {
    const store = await newStore();
    const logFile = join(dir, `log-${Math.random().toString(36).slice(2)}`);
    writeFileSync(logFile, "");
    await step(store, logFile, "start");
    const approval = await step(store, logFile, "answer-human", { id: "c1", name: "ask_human", response: {} });
    const crashed = await step(
      store,
      logFile,
      "answer-approval",
      { id: approval.pending!.id, name: REQUEST_INPUT_FUNCTION_CALL_NAME, response: { approved: true } },
      { HANG_IN_CHARGE: "1" },
    );
    expect(crashed.charging).toBe(true);

    const resumed = await step(store, logFile, "resume");
    expect(resumed.outputs).toEqual([
      ["charge", expect.objectContaining({ code: "NODE_INTERRUPTED", name: "NodeInterruptedError" })],
      ["check_charge", "charge needs checking: NODE_INTERRUPTED"],
    ]);
    expect(logOf(logFile)).toEqual(["prepare", 'charge {"amount":42}', "check NODE_INTERRUPTED"]);
  }, 120_000);
});
