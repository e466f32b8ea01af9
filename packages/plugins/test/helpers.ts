import { InMemoryRunner, type BaseAgent, type BasePlugin, type Event } from "@agentkit/core";

/** Runs one user message through a fresh in-memory runner with the plugins; returns the events. */
export async function runOnce(
  agent: BaseAgent,
  plugins: BasePlugin[],
  text: string,
  runner?: InMemoryRunner,
  sessionId?: string,
) {
  const r = runner ?? new InMemoryRunner({ agent, appName: "plugins_test", plugins });
  const sid = sessionId ?? (await r.sessionService.createSession({ appName: "plugins_test", userId: "u" })).id;
  const events: Event[] = [];
  for await (const event of r.runAsync({
    userId: "u",
    sessionId: sid,
    newMessage: { role: "user", parts: [{ text }] },
  }))
    events.push(event);
  return { runner: r, sessionId: sid, events };
}
