// `runner-overhead.ts --baseline DIR --processes N`: this checkout's agentkit against another
// checkout's, each in processes of its own, N pairs one after the other (the order alternating
// within a pair). In one process the two share a heap: a young collection runs when either side
// fills the young generation and promotes both sides' kept objects (the sessions and their
// events), so a change in what a run keeps is charged to whichever side happens to be running.
// In processes of their own each side pays for its own heap, helper threads included.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { stringArg } from "./args.js";
import { repoRoot } from "./repo-root.js";
import { spread } from "./stats.js";

/** CPU µs per invocation of agentkit in one child: `runner-overhead.ts --only agentkit` of that checkout. */
function childCpuPerInvocation(checkout: string, rounds: number, seconds: number): Promise<number> {
  const script = join(checkout, "bench", "src", "runner-overhead.ts");
  // This process's runtime flags (the built dist by default, or the sources under tsx), so both
  // checkouts run the same way; the other checkout resolves its own packages.
  const args = [
    ...process.execArgv,
    script,
    "--only",
    "agentkit",
    "--rounds",
    String(rounds),
    "--seconds",
    String(seconds),
    ...warmUpArgs(),
  ];
  const child = spawn(process.execPath, args, { cwd: join(checkout, "bench"), stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolveCpu, reject) => {
    child.once("error", reject);
    child.once("close", (code) => {
      // The table row `| agentkit | <inv/s> (<range>) | <CPU µs> (<range>) | …`, the same in every checkout.
      const row = /^\| agentkit \| [^|]+\| (\d+(?:\.\d+)?) /m.exec(out);
      if (code !== 0 || !row) reject(new Error(`${script} exited with ${code} without its table:\n${out}`));
      else resolveCpu(Number(row[1]));
    });
  });
}

/** This process's warm-up options, for the children (each settles on its own). */
function warmUpArgs(): string[] {
  return ["warm-up", "warm-up-window", "warm-up-seconds", "max-warm-up-seconds"].flatMap((name) => {
    const value = stringArg(name, "");
    return value ? [`--${name}`, value] : [];
  });
}

/** Runs the pairs and prints each pair's CPU per invocation and the median of their ratios. */
export async function compareInProcesses(baselineDir: string, pairs: number, rounds: number, seconds: number) {
  const here = repoRoot;
  const there = resolve(baselineDir);
  const ratios: number[] = [];
  const all = { here: [] as number[], there: [] as number[] };
  for (let pair = 0; pair < pairs; pair++) {
    const cpu = { here: 0, there: 0 };
    for (const side of pair % 2 ? (["there", "here"] as const) : (["here", "there"] as const)) {
      cpu[side] = await childCpuPerInvocation(side === "here" ? here : there, rounds, seconds);
      all[side].push(cpu[side]);
    }
    ratios.push(cpu.here / cpu.there);
    console.log(`pair ${pair + 1}: agentkit ${cpu.here} µs, baseline ${cpu.there} µs per invocation`);
  }
  // Other jobs on the machine only ever add CPU time, so each side's fastest process is the
  // figure least touched by them; the median of the pairs' ratios is given beside it.
  const fastest = Math.min(...all.here) / Math.min(...all.there);
  console.log(
    `FIGURE in-process CPU per invocation, agentkit / baseline, separate processes: ${fastest.toFixed(3)} ` +
      `(fastest process of each; ${Math.min(...all.here)} / ${Math.min(...all.there)} µs; median of the pairs' ratios ${spread(ratios, 3)})`,
  );
}
