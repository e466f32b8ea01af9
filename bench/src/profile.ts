// `pnpm bench:profile`: CPU profiles of agentkit on each measured path, then their summaries
// (top functions by self time, time by package), ready to paste into README.md:
//   in-process (runner-overhead --profile), long session at its largest size in memory and on
//   SQLite (long-session --profile), HTTP fresh and warm (http-server --profile: the server
//   child profiles itself over IPC). Profiles cover the measured phase only; open the
//   .cpuprofile files in Chrome DevTools (Performance) for the call trees.
// Usage: pnpm bench:profile [-- --out DIR --top 10]
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { numberArg, stringArg } from "./args.js";
import { formatSummary, summariseProfile } from "./profile-summary.js";

const OUT = stringArg(
  "out",
  fileURLToPath(new URL(`../profiles/${new Date().toISOString().replace(/[:.]/g, "-")}`, import.meta.url)),
);
const TOP = numberArg("top", 10);

function run(script: string, args: string[]): Promise<void> {
  const file = fileURLToPath(new URL(`./${script}`, import.meta.url));
  const child = spawn(process.execPath, [...process.execArgv, file, "--profile", OUT, ...args], { stdio: "inherit" });
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${script} exited with ${code}`)))),
  );
}

mkdirSync(OUT, { recursive: true });
await run("runner-overhead.ts", ["--seconds", "3"]);
await run("long-session.ts", []);
await run("http-server.ts", []);
for (const file of readdirSync(OUT)
  .filter((f) => f.endsWith(".cpuprofile"))
  .sort()) {
  console.log(`\n### ${file}\n`);
  console.log(formatSummary(summariseProfile(JSON.parse(readFileSync(join(OUT, file), "utf8"))), TOP));
}
