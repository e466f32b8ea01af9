import { readFileSync } from "node:fs";
import { InMemoryRunner, type BaseAgent, type Content, type Event } from "@agentkit/core";

/** A runner with in-memory services, a session, and a `send` that collects the events of one turn. */
export async function startRunner(agent: BaseAgent, state: Record<string, unknown> = {}) {
  const runner = new InMemoryRunner({ agent, appName: "tools_test" });
  const session = await runner.sessionService.createSession({ appName: "tools_test", userId: "u", state });
  const send = async (message: string | Content): Promise<Event[]> => {
    const events: Event[] = [];
    const newMessage = typeof message === "string" ? { role: "user", parts: [{ text: message }] } : message;
    for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) events.push(event);
    return events;
  };
  const reload = async () =>
    (await runner.sessionService.getSession({ appName: "tools_test", userId: "u", sessionId: session.id }))!;
  return { runner, session, send, reload };
}

/** Text of an event's non-thought text parts. */
export function textOf(event: Event | undefined): string {
  return (event?.content?.parts ?? []).map((p) => (p.thought ? "" : (p.text ?? ""))).join("");
}

/** True while the process runs (a killed process awaiting its reaper, a zombie, counts as dead). */
export function pidAlive(pid: number): boolean {
  // `kill(0)` or a negative number would signal a whole process group, which always answers.
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`Not a process id: ${String(pid)}`);
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return true;
  }
}

/**
 * Resolves once `pid` is gone (a SIGKILLed process dies a moment after the signal). No deadline
 * of its own: a process that lives on fails the test by its timeout.
 */
export async function exited(pid: number): Promise<void> {
  while (pidAlive(pid)) await new Promise((r) => setTimeout(r, 20));
}
