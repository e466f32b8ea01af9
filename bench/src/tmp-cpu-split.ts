import { readFileSync } from "node:fs";
import { runLoad } from "./http-load.js";
import { startServer } from "./server-process.js";
import type { ServerKind } from "./server-child.js";
const ticks = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return { u: Number(f[11]) * 10000, s: Number(f[12]) * 10000 };
};
for (const kind of (process.argv[2] ?? "bare,agentkit,baseline").split(",") as ServerKind[]) {
  const s = await startServer(kind, { baselineDir: "/work/wt-http2-base" });
  await runLoad(s.url, { concurrency: 64, route: "/run", seconds: 2 });
  const b = ticks(s.pid);
  const load = await runLoad(s.url, { concurrency: 64, route: "/run", seconds: 4 });
  const a = ticks(s.pid);
  console.log(
    kind,
    "flows",
    load.flows,
    "user us/flow",
    ((a.u - b.u) / load.flows).toFixed(0),
    "sys us/flow",
    ((a.s - b.s) / load.flows).toFixed(0),
  );
  await s.stop();
}
