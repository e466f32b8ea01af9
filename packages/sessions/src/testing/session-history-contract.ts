import { createEvent, forkSession, rewindSession, type BaseSessionService } from "@agentkit/core";
import type { ContractContext, ContractTestApi } from "./contract-harness.js";

/** Rewind and fork (core's `rewindSession` / `forkSession`) stored and read back by the backend. */
export function defineSessionHistoryContract(
  ctx: ContractContext<BaseSessionService>,
  { describe, it, expect }: ContractTestApi,
): void {
  const services = () => ({ appName: ctx.appName, sessionService: ctx.service });
  const key = (sessionId: string) => ({ appName: ctx.appName, userId: "u1", sessionId });

  async function history() {
    const session = await ctx.service.createSession({ ...key("s1"), state: { initial: 1 } });
    const turns: [string, Record<string, unknown>][] = [
      ["i1", { a: 1 }],
      ["i2", { a: 2, b: 2, "user:u": 2 }],
      ["i3", { a: 3 }],
    ];
    for (const [invocationId, stateDelta] of turns) {
      await ctx.service.appendEvent({ session, event: createEvent({ invocationId, author: "user" }) });
      await ctx.service.appendEvent({
        session,
        event: createEvent({ invocationId, author: "a", actions: { stateDelta } }),
      });
    }
    return session;
  }

  describe("rewind and fork", () => {
    it("rewinds state to before an invocation and stores the rewind event", async () => {
      await history();
      const rewind = await rewindSession(services(), { userId: "u1", sessionId: "s1", beforeInvocationId: "i2" });
      const stored = await ctx.service.getSession(key("s1"));
      expect(stored?.state).toEqual({ initial: 1, a: 1, b: null, "user:u": 2 });
      expect(stored?.events.at(-1)).toMatchObject({
        id: rewind.id,
        actions: { rewindBeforeInvocationId: "i2", stateDelta: { a: 1, b: null } },
      });
    });

    it("forks a session up to an event into a new session, leaving shared state alone", async () => {
      const source = await history();
      const cut = source.events[3]!;
      const fork = await forkSession(services(), {
        userId: "u1",
        sessionId: "s1",
        eventId: cut.id,
        newSessionId: "f1",
      });
      const stored = await ctx.service.getSession(key(fork.id));
      expect(stored?.events.map((e) => e.id)).toEqual(source.events.slice(0, 4).map((e) => e.id));
      expect(stored?.state).toEqual({ initial: 1, a: 2, b: 2, "user:u": 2 });
      expect((await ctx.service.getSession(key("s1")))?.events).toHaveLength(6);
    });
  });
}
