import { Agent } from "node:http";
import { createSession, flow } from "./http-load.js";
import { startServer } from "./server-process.js";
const mb = (b: number) => (b / 2 ** 20).toFixed(1);
const server = await startServer("agentkit", { sessions: "memory", exposeGc: true });
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const show = (label: string, s: Record<string, number>) =>
  console.log(label, Object.entries(s).filter(([k]) => k !== "cpuUs").map(([k, v]) => `${k}=${mb(v)}`).join(" "));
show("fresh", await server.gc() as any);
const sid = await createSession(agent, server.url);
const turns = Number(process.argv[2] ?? 2000);
for (let t = 1; t <= turns; t++) {
  await flow(agent, server.url, "/run", sid);
  if (t === 100 || t === 500 || t === 1000 || t === turns) show(`after ${t}`, await server.gc() as any);
}
agent.destroy();
await server.stop();
