// Orchestration overhead of the workflow engine, in process, with an instant model:
// the same chain of N steps as
//   1. SequentialAgent of N LLM agents (how the flow is written today),
//   2. Workflow chain ["START", a1, ..., aN] of the same kind of agents,
//   3. Workflow chain of N function nodes (no model: the engine alone),
//   4. the Workflow of (2) in a resumable app (checkpoint records written to the session),
// each over fresh sessions after a warm-up, in one run so the ratios compare like with like.
// Then large graphs: building and running one chain of N function nodes, and a fan-out of N
// function nodes into a join, µs per node at each size (flat when nothing is quadratic).
// Usage: pnpm --filter @agentkit/bench run bench:workflow [-- --nodes 10 --invocations 1000 --sizes 1000,4000,16000]
import { cpuUsage, hrtime } from "node:process";
import {
  App,
  BaseLlm,
  FunctionNode,
  InMemoryRunner,
  JoinNode,
  LlmAgent,
  SequentialAgent,
  Workflow,
  type BaseAgent,
  type LlmRequest,
  type LlmResponse,
} from "@agentkit/core";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const NODES = arg("nodes", 10);
const SIZES = (() => {
  const i = process.argv.indexOf("--sizes");
  return (i >= 0 ? process.argv[i + 1]! : "1000,4000,16000").split(",").map(Number);
})();
const INVOCATIONS = arg("invocations", 1000);
const WARMUP = Math.min(100, Math.floor(INVOCATIONS / 10));

/** Answers every request at once with one text part. */
class TextModel extends BaseLlm {
  constructor() {
    super({ model: "instant-text" });
  }

  async *generateContentAsync(_request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    yield {
      content: { role: "model", parts: [{ text: "done" }] },
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
    };
  }
}

const agents = () =>
  Array.from(
    { length: NODES },
    (_, i) => new LlmAgent({ name: `step_${i}`, model: new TextModel(), instruction: "Go." }),
  );

const functionNodes = () =>
  Array.from({ length: NODES }, (_, i) => new FunctionNode(`step_${i}`, (_ctx, input: unknown) => input));

interface Measured {
  label: string;
  usPerInvocation: number;
  cpuUsPerInvocation: number;
  events: number;
}

async function measure(label: string, rootAgent: BaseAgent, resumable = false): Promise<Measured> {
  const runner = resumable
    ? new InMemoryRunner({ app: new App({ name: "bench", rootAgent, resumability: { isResumable: true } }) })
    : new InMemoryRunner({ agent: rootAgent, appName: "bench" });
  const sessions = await Promise.all(
    Array.from({ length: INVOCATIONS }, () => runner.sessionService.createSession({ appName: "bench", userId: "u" })),
  );
  const invoke = async (sessionId: string) => {
    let n = 0;
    for await (const _e of runner.runAsync({ userId: "u", sessionId, newMessage: "go" })) n++;
    return n;
  };
  for (let i = 0; i < WARMUP; i++) await invoke(sessions[i]!.id);
  const cpu0 = cpuUsage();
  const t0 = hrtime.bigint();
  let events = 0;
  for (let i = WARMUP; i < INVOCATIONS; i++) events += await invoke(sessions[i]!.id);
  const wallUs = Number(hrtime.bigint() - t0) / 1e3;
  const cpu = cpuUsage(cpu0);
  await runner.close();
  const n = INVOCATIONS - WARMUP;
  return { label, usPerInvocation: wallUs / n, cpuUsPerInvocation: (cpu.user + cpu.system) / n, events: events / n };
}

console.log(`agentkit workflow overhead, Node ${process.version}, ${new Date().toISOString()}`);
console.log(`${NODES} steps per invocation, ${INVOCATIONS - WARMUP} invocations per row (fresh sessions)\n`);
const rows = [
  await measure("SequentialAgent of LLM agents", new SequentialAgent({ name: "seq", subAgents: agents() })),
  await measure("Workflow chain of LLM agents", new Workflow({ name: "wf", edges: [["START", ...agents()]] })),
  await measure(
    "Workflow chain of function nodes",
    new Workflow({ name: "fn", edges: [["START", ...functionNodes()]] }),
  ),
  await measure(
    "Workflow of LLM agents, resumable",
    new Workflow({ name: "wf_r", edges: [["START", ...agents()]] }),
    true,
  ),
];
const baseline = rows[0]!.usPerInvocation;
console.log("| flow | µs/invocation | µs/step | CPU µs/step | events/invocation | vs SequentialAgent |");
console.log("| --- | ---: | ---: | ---: | ---: | ---: |");
for (const r of rows) {
  console.log(
    `| ${r.label} | ${r.usPerInvocation.toFixed(0)} | ${(r.usPerInvocation / NODES).toFixed(1)} | ` +
      `${(r.cpuUsPerInvocation / NODES).toFixed(1)} | ${r.events.toFixed(0)} | x${(r.usPerInvocation / baseline).toFixed(2)} |`,
  );
}

/** Builds the workflow, then runs it once on a fresh session: wall µs of each, per node. */
async function large(make: (n: number) => Workflow, n: number): Promise<{ build: number; run: number }> {
  const t0 = hrtime.bigint();
  const workflow = make(n);
  const built = hrtime.bigint();
  const runner = new InMemoryRunner({ agent: workflow, appName: "bench" });
  const { id } = await runner.sessionService.createSession({ appName: "bench", userId: "u" });
  const t1 = hrtime.bigint();
  for await (const _e of runner.runAsync({ userId: "u", sessionId: id, newMessage: "go" }));
  const ran = hrtime.bigint();
  await runner.close();
  return { build: Number(built - t0) / 1e3 / n, run: Number(ran - t1) / 1e3 / n };
}

const chainOf = (n: number) =>
  new Workflow({
    name: "chain",
    edges: [["START", ...Array.from({ length: n }, (_, i) => new FunctionNode(`n${i}`, () => i))]],
  });
const fanOutOf = (n: number) =>
  new Workflow({
    name: "fan",
    edges: [
      [
        "START",
        new FunctionNode("split", () => 0),
        Array.from({ length: n }, (_, i) => new FunctionNode(`b${i}`, () => i)),
        new JoinNode({ name: "join" }),
      ],
    ],
  });

console.log("\nLarge graphs: µs per node to build the workflow and to run it once (one session)\n");
console.log("| graph | nodes | build µs/node | run µs/node |");
console.log("| --- | ---: | ---: | ---: |");
for (const [label, make] of [
  ["chain", chainOf],
  ["fan-out into a join", fanOutOf],
] as const) {
  for (const n of SIZES) {
    const { build, run } = await large(make, n);
    console.log(`| ${label} | ${n.toLocaleString("en-US")} | ${build.toFixed(1)} | ${run.toFixed(1)} |`);
  }
}
