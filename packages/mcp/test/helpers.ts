import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { InMemorySessionService, InvocationContext, LlmAgent, PluginManager, ToolContext } from "@agentkit/core";
import type { StdioServerParameters } from "../src/index.js";

export const testDir = dirname(fileURLToPath(import.meta.url));
export const packageDir = dirname(testDir);

/** Spawns the stdio fixture with tsx (resolved from the package dir). */
export function stdioFixture(script = "stdio-server.ts"): StdioServerParameters {
  return {
    type: "stdio",
    command: process.execPath,
    args: ["--import", "tsx", join(testDir, "fixtures", script)],
    cwd: packageDir,
  };
}

/** A ToolContext for calling tools directly, outside a run (of user `userId`). */
export async function makeToolContext(signal?: AbortSignal, userId = "u"): Promise<ToolContext> {
  const sessionService = new InMemorySessionService();
  const session = await sessionService.createSession({ appName: "mcp_test", userId });
  const agent = new LlmAgent({ name: "mcp_test_agent" });
  const ctx = new InvocationContext({
    invocationId: "inv-1",
    agent,
    session,
    sessionService,
    pluginManager: new PluginManager(),
    signal,
  });
  return new ToolContext(ctx, { functionCallId: "call-1" });
}

/** Live child processes of this process (from /proc; zombies excluded). */
export function childPids(parent = process.pid): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // pid (comm) state ppid ...: comm may contain spaces, so parse after the last ")".
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === parent && state !== "Z") pids.push(Number(entry));
  }
  return pids;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Polls `check` until it holds. No deadline of its own: a slow machine only makes it wait
 * longer; a condition that never holds fails the test through the test's timeout.
 */
export async function waitFor(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 25));
}

/** Counts of active resources by type (timers excluded: they come and go with the SDK's request timeouts). */
export function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}
