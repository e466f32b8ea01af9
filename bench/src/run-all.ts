// `pnpm bench`: every benchmark with a target of the performance issue, one after the other,
// each in its own Node process (its own heap and JIT), then the targets of all of them in one
// summary. Arguments are passed to every benchmark (each reads the options it knows).
// `--repeat N` runs the whole set N times and summarises each target as the median over the
// runs with their range (PASS/FAIL on the median). A missed target is reported, never an
// error; a benchmark that crashes is.
// Usage: pnpm bench [-- --repeat 3 --rounds 5]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { numberArg } from "./args.js";
import { summariseTargets } from "./summarise-targets.js";

/** Each benchmark's script and its own arguments (before the ones given to all). */
const BENCHMARKS: { script: string; args?: string[] }[] = [
  { script: "runner-overhead.ts" },
  // The same without the stores keeping every session: figures beside the in-process targets.
  { script: "runner-overhead.ts", args: ["--drop-sessions"] },
  { script: "long-session.ts" },
  { script: "http-server.ts" },
  { script: "server-memory.ts" },
  { script: "cli-cold-start.ts" },
];
const REPEAT = numberArg("repeat", 1);

function run(script: string, args: string[]): Promise<string[]> {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, file, ...args, ...process.argv.slice(2)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const collected: string[] = [];
  let pending = "";
  child.stdout.on("data", (chunk: Buffer) => {
    process.stdout.write(chunk);
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.startsWith("TARGET ") || line.startsWith("FIGURE ")) collected.push(line);
  });
  return new Promise((resolve, reject) =>
    child.once("exit", (code) =>
      code === 0 ? resolve(collected) : reject(new Error(`${script} exited with ${code}`)),
    ),
  );
}

const started = Date.now();
const runs: string[][] = [];
for (let i = 0; i < REPEAT; i++) {
  const lines: string[] = [];
  for (const { script, args = [] } of BENCHMARKS) {
    const name = [script, ...args].join(" ");
    console.log(`\n=== ${name}${REPEAT > 1 ? ` (run ${i + 1} of ${REPEAT})` : ""} ===`);
    lines.push(...(await run(script, args)));
  }
  runs.push(lines);
}
console.log(`\n=== summary (${((Date.now() - started) / 1000).toFixed(0)} s) ===`);
for (const line of REPEAT > 1 ? summariseTargets(runs) : runs[0]!) console.log(line);
