// `pnpm bench`: every benchmark with a target of the performance issue, one after the other,
// each in its own Node process (its own heap and JIT), then the targets of all of them in one
// summary. Arguments are passed to every benchmark (each reads the options it knows). A missed
// target is reported, never an error; a benchmark that crashes is.
// Usage: pnpm bench [-- --rounds 5]
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const BENCHMARKS = ["runner-overhead.ts", "long-session.ts", "http-server.ts", "server-memory.ts", "cli-cold-start.ts"];

function run(script: string): Promise<string[]> {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, file, ...process.argv.slice(2)], {
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
const summary: string[] = [];
for (const script of BENCHMARKS) {
  console.log(`\n=== ${script} ===`);
  summary.push(...(await run(script)));
}
console.log(`\n=== summary (${((Date.now() - started) / 1000).toFixed(0)} s) ===`);
for (const line of summary) console.log(line);
