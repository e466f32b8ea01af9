import { getHeapSpaceStatistics } from "node:v8";
import { InMemoryRunner } from "@agentkit/core";
import { createTraceRecorder } from "@agentkit/server/devtools";
import { makeBenchAgent } from "./bench-agent.js";
const traced = process.argv[2] === "traced";
const recorder = traced ? createTraceRecorder() : undefined;
const runner = new InMemoryRunner({ agent: makeBenchAgent(), appName: "bench", plugins: recorder ? [recorder.plugin] : [] });
const s = await runner.sessionService.createSession({ appName: "bench", userId: "u" });
const stats = () => { (globalThis as any).gc(); const ns = getHeapSpaceStatistics().find((x) => x.space_name === "new_space")!; return `heapUsed ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(1)} MB, new space ${(ns.space_size / 2 ** 20).toFixed(0)} MB, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`; };
for (let t = 1; t <= 2000; t++) {
  for await (const _ of runner.runAsync({ userId: "u", sessionId: s.id, newMessage: { role: "user", parts: [{ text: "q" }] } })) {}
  if ([100, 500, 1000, 1500, 2000].includes(t)) console.log(`${traced ? "traced" : "plain "} turn ${t}: ${stats()}`);
}
