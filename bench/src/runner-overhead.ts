// In-process runner overhead with an instant model: one tool call, then the final answer
// (4 events per invocation: user, call, response, answer).
//   1. throughput: invocations/s and CPU µs per invocation and per event, each on a fresh session;
//   2. growth: time per invocation while ONE session grows to N invocations, in windows,
//      with full history in the request (default) and with includeContents "none".
// Usage: pnpm bench [-- --invocations 5000]
import { cpuUsage, hrtime } from "node:process";
import { FunctionTool, InMemoryRunner, LlmAgent, type Event } from "@agentkit/core";
import { z } from "zod";
import { InstantModel } from "./instant-model.js";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const GROWTH = arg("invocations", 5000);
const THROUGHPUT = arg("throughput", 3000);

function makeAgent(includeContents: "default" | "none" = "default") {
  const lookup = new FunctionTool({
    name: "lookup",
    description: "Looks something up.",
    parameters: z.object({ q: z.string() }),
    execute: async ({ q }) => ({ q, value: 42 }),
  });
  return new LlmAgent({
    name: "bench_agent",
    model: new InstantModel(),
    instruction: "Answer.",
    tools: [lookup],
    includeContents,
  });
}

async function invoke(runner: InMemoryRunner, sessionId: string): Promise<number> {
  let n = 1; // the user event is persisted, not yielded
  for await (const _e of runner.runAsync({
    userId: "u",
    sessionId,
    newMessage: { role: "user", parts: [{ text: "q" }] },
  }))
    n++;
  return n;
}

async function throughput(): Promise<void> {
  const runner = new InMemoryRunner({ agent: makeAgent(), appName: "bench" });
  const sessions = await Promise.all(
    Array.from({ length: THROUGHPUT }, () => runner.sessionService.createSession({ appName: "bench", userId: "u" })),
  );
  for (let i = 0; i < 200; i++) await invoke(runner, sessions[i]!.id); // warm-up
  const cpu0 = cpuUsage();
  const t0 = hrtime.bigint();
  let events = 0;
  for (let i = 200; i < THROUGHPUT; i++) events += await invoke(runner, sessions[i]!.id);
  const wallS = Number(hrtime.bigint() - t0) / 1e9;
  const cpu = cpuUsage(cpu0);
  const cpuUs = cpu.user + cpu.system;
  const n = THROUGHPUT - 200;
  console.log(`throughput (${n} invocations, fresh sessions, ${events} events):`);
  console.log(
    `  ${(n / wallS).toFixed(0)} invocations/s, ${(cpuUs / n).toFixed(1)} CPU ` +
      `µs/invocation, ${(cpuUs / events).toFixed(1)} CPU µs/event`,
  );
  await runner.close();
}

async function growth(includeContents: "default" | "none"): Promise<void> {
  const runner = new InMemoryRunner({ agent: makeAgent(includeContents), appName: "bench" });
  const session = await runner.sessionService.createSession({ appName: "bench", userId: "u" });
  const window = Math.max(1, Math.floor(GROWTH / 10));
  const rows: string[] = [];
  let t = hrtime.bigint();
  let first = 0;
  for (let i = 1; i <= GROWTH; i++) {
    await invoke(runner, session.id);
    if (i % window === 0) {
      const now = hrtime.bigint();
      const perInv = Number(now - t) / 1e3 / window;
      if (first === 0) first = perInv;
      rows.push(
        `  after ${String(i).padStart(5)} invocations (${String(i * 4).padStart(6)} ` +
          `events): ${perInv.toFixed(0).padStart(6)} µs/invocation (x${(perInv / first).toFixed(2)})`,
      );
      t = hrtime.bigint();
    }
  }
  const stored = await runner.sessionService.getSession({ appName: "bench", userId: "u", sessionId: session.id });
  const events: Event[] = stored?.events ?? [];
  console.log(
    `growth of one session to ${GROWTH} invocations, includeContents "${includeContents}" (${events.length} events ` +
      `stored):`,
  );
  for (const r of rows) console.log(r);
  await runner.close();
}

console.log(`agentkit runner overhead, Node ${process.version}, ${new Date().toISOString()}`);
await throughput();
await growth("none");
await growth("default");
