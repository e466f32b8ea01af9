// `pnpm bench:dev-server`: the dev server as a developer runs it. `agentkit web` on a copy of
// the example agents with its default services (SQLite sessions and file artifacts in the agents
// folder's `.agentkit/`), reload on and every run traced for the dev UI; beside it the same with
// `--no-reload`, and `agentkit api-server` on the same services (no reload, no traces). Each
// server is spawned as a user runs it, warmed up (its start-up warm-up, then --warm-up-flows
// flows), then measured over --flows flows one after the other (create session + `/run` of the
// `assistant` example on its offline demo model; last, `agentkit web` on `yaml_pipeline`, a
// SequentialAgent of two LLM agents, so the workflow engine is measured too): the server's CPU per flow (all its threads,
// Linux's scheduler accounting) and the client's wall time per flow. Configurations are
// interleaved over --runs runs; medians with their range. Figures, not targets: the dev server's
// cost per flow, so a change that makes every run wake the file watcher, or trace more, shows.
// Usage: pnpm bench:dev-server [-- --runs 3 --flows 1000 --warm-up-flows 200 --runtime dist|source]
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OFFLINE_ENV } from "@agentkit/test-support/offline-models";
import { numberArg, stringArg } from "./args.js";
import { agentFlow, agentkitBin, exampleAgentsDir, startCliServer } from "./cli-commands.js";
import { median, spread } from "./stats.js";
import { processCpuMs } from "./thread-cpu.js";

const RUNS = numberArg("runs", 3);
const FLOWS = numberArg("flows", 1000);
const WARM_UP_FLOWS = numberArg("warm-up-flows", 200);
const RUNTIME = stringArg("runtime", "dist");

interface Config {
  name: string;
  args: string[];
  /** The example app each flow runs, and text its answer contains. */
  app: string;
  expect: string;
}

const CONFIGS: Config[] = [
  {
    name: "agentkit web (reload, traces; SQLite + files in .agentkit/)",
    args: ["web"],
    app: "assistant",
    expect: "demo",
  },
  { name: "agentkit web --no-reload", args: ["web", "--no-reload"], app: "assistant", expect: "demo" },
  { name: "agentkit api-server (same services)", args: ["api-server"], app: "assistant", expect: "demo" },
  // A SequentialAgent of two LLM agents (YAML): every flow also runs the workflow engine.
  { name: "agentkit web, yaml_pipeline (a SequentialAgent)", args: ["web"], app: "yaml_pipeline", expect: "demo" },
];

/**
 * A copy of the example agents the servers may write into: the apps and their shared code, with
 * the examples' `node_modules` linked (so `@agentkit/*` resolve as they do there).
 */
function agentsCopy(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-bench-dev-server-"));
  for (const entry of ["assistant", "yaml_pipeline", "_shared", "package.json"]) {
    cpSync(join(exampleAgentsDir, entry), join(dir, entry), { recursive: true });
  }
  symlinkSync(join(exampleAgentsDir, "node_modules"), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

interface Sample {
  cpuMsPerFlow: number;
  wallMsPerFlow: number;
}

async function measure(config: Config, agentsDir: string): Promise<Sample> {
  const server = await startCliServer([agentkitBin, ...config.args, agentsDir, "--port", "0"], {
    ...process.env,
    ...OFFLINE_ENV,
    AGENTKIT_RUNTIME: RUNTIME,
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!/warmed up/.test(server.output().out)) {
      if (Date.now() > deadline) throw new Error(`${config.name} did not warm up: ${server.output().err}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let i = 0; i < WARM_UP_FLOWS; i++) await agentFlow(server.url, config.app, config.expect);
    const cpu = processCpuMs(server.pid);
    const started = performance.now();
    for (let i = 0; i < FLOWS; i++) await agentFlow(server.url, config.app, config.expect);
    const wall = performance.now() - started;
    return { cpuMsPerFlow: (processCpuMs(server.pid) - cpu) / FLOWS, wallMsPerFlow: wall / FLOWS };
  } finally {
    await server.stop();
  }
}

if (Number.isNaN(processCpuMs(process.pid))) throw new Error("needs Linux's /proc/<pid>/task/*/schedstat");
console.log(
  `dev server flows, agentkit's ${RUNTIME} runtime, Node ${process.version}, ${new Date().toISOString()}; ` +
    `${RUNS} runs of ${FLOWS} flows after ${WARM_UP_FLOWS}, one at a time\n`,
);
const samples = new Map<string, Sample[]>(CONFIGS.map((c) => [c.name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const config of CONFIGS) {
    // A fresh folder per server: each starts with an empty database, as a new project does.
    const agents = agentsCopy();
    try {
      samples.get(config.name)!.push(await measure(config, agents.dir));
    } finally {
      agents.remove();
    }
  }
}
const fmt = (values: number[]) => spread(values, 2);
console.log("| server | CPU ms per flow, median (range) | wall ms per flow |");
console.log("| --- | ---: | ---: |");
for (const config of CONFIGS) {
  const list = samples.get(config.name)!;
  console.log(
    `| ${config.name} | ${fmt(list.map((s) => s.cpuMsPerFlow))} | ${fmt(list.map((s) => s.wallMsPerFlow))} |`,
  );
}
for (const config of CONFIGS) {
  const cpu = median(samples.get(config.name)!.map((s) => s.cpuMsPerFlow));
  console.log(`FIGURE server CPU per flow, ${config.name}: ${cpu.toFixed(2)} ms`);
}
