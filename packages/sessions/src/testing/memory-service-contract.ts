import { createEvent, type BaseMemoryService, type Event, type Session } from "@agentkit/core";
import { checkContractTestApi, useContractSubject } from "@agentkit/core/testing";
import type { ContractFactory, ContractTestApi } from "./contract-harness.js";

/**
 * The behaviour every `BaseMemoryService` must have: ingest a session's text events per
 * (app, user), replace a re-ingested session, and find events by case-insensitive keywords
 * ranked by matched words, then recency.
 */
export function runMemoryServiceContract(
  name: string,
  factory: ContractFactory<BaseMemoryService>,
  test: ContractTestApi,
): void {
  const { describe, it, expect } = checkContractTestApi("runMemoryServiceContract", test);
  describe(`${name} (memory service contract)`, () => {
    const ctx = useContractSubject(factory, test);
    const base = 1_700_000_000;
    const say = (id: string, text: string, offset: number, author = "user"): Event =>
      createEvent({
        id,
        author,
        timestamp: base + offset,
        content: { role: author === "user" ? "user" : "model", parts: [{ text }] },
      });
    const session = (id: string, events: Event[], userId = "u1", appName = ctx.appName): Session => ({
      id,
      appName,
      userId,
      state: {},
      events,
      lastUpdateTime: base + 1000,
    });
    const search = (query: string, userId = "u1", appName = ctx.appName) =>
      ctx.service.searchMemory({ appName, userId, query });

    it("finds remembered text events and returns content, author, ISO timestamp and id", async () => {
      await ctx.service.addSessionToMemory(
        session("s1", [say("e1", "My cat is called Tom", 1), say("e2", "What a lovely name", 2, "agent")]),
      );
      const { memories } = await search("cat");
      expect(memories).toHaveLength(1);
      expect(memories[0]).toMatchObject({
        id: "e1",
        author: "user",
        timestamp: new Date((base + 1) * 1000).toISOString(),
        content: { parts: [{ text: "My cat is called Tom" }] },
      });
    });

    it("matches case-insensitively and on any query word", async () => {
      await ctx.service.addSessionToMemory(
        session("s1", [say("e1", "Paris is SUNNY today", 1), say("e2", "Berlin is rainy", 2)]),
      );
      expect((await search("sunny")).memories.map((m) => m.id)).toEqual(["e1"]);
      expect((await search("PARIS")).memories.map((m) => m.id)).toEqual(["e1"]);
      expect((await search("berlin, london?")).memories.map((m) => m.id)).toEqual(["e2"]);
      expect((await search("tokyo")).memories).toEqual([]);
      expect((await search("")).memories).toEqual([]);
    });

    it("ranks by the number of matched words, then by recency", async () => {
      await ctx.service.addSessionToMemory(
        session("s1", [
          say("old-two", "red apple pie", 1),
          say("one", "an apple", 5),
          say("new-two", "apple and red wine", 3),
          say("none", "banana", 9),
        ]),
      );
      expect((await search("red apple")).memories.map((m) => m.id)).toEqual(["new-two", "old-two", "one"]);
    });

    it("ignores events without text", async () => {
      const call = createEvent({
        id: "call",
        author: "agent",
        timestamp: base + 1,
        content: { parts: [{ functionCall: { name: "weather", args: { city: "weather" } } }] },
      });
      const bare = createEvent({
        id: "bare",
        author: "agent",
        timestamp: base + 2,
        actions: { stateDelta: { weather: 1 } },
      });
      await ctx.service.addSessionToMemory(session("s1", [call, bare, say("text", "weather is fine", 3)]));
      expect((await search("weather")).memories.map((m) => m.id)).toEqual(["text"]);
    });

    it("searches across a user's sessions and keeps users and apps apart", async () => {
      await ctx.service.addSessionToMemory(session("s1", [say("a", "coffee please", 1)]));
      await ctx.service.addSessionToMemory(session("s2", [say("b", "more coffee", 2)]));
      await ctx.service.addSessionToMemory(session("s3", [say("c", "coffee for u2", 3)], "u2"));
      await ctx.service.addSessionToMemory(
        session("s4", [say("d", "coffee elsewhere", 4)], "u1", `${ctx.appName}-other`),
      );
      expect((await search("coffee")).memories.map((m) => m.id)).toEqual(["b", "a"]);
      expect((await search("coffee", "u2")).memories.map((m) => m.id)).toEqual(["c"]);
      expect((await search("coffee", "u1", `${ctx.appName}-other`)).memories.map((m) => m.id)).toEqual(["d"]);
      expect((await search("coffee", "nobody")).memories).toEqual([]);
    });

    it("replaces what it remembered when the same session is added again", async () => {
      await ctx.service.addSessionToMemory(session("s1", [say("e1", "tea time", 1)]));
      await ctx.service.addSessionToMemory(session("s1", [say("e1", "tea time", 1), say("e2", "more tea", 2)]));
      expect((await search("tea")).memories.map((m) => m.id)).toEqual(["e2", "e1"]);
      await ctx.service.addSessionToMemory(session("s1", [say("e3", "water only", 3)]));
      expect((await search("tea")).memories).toEqual([]);
      expect((await search("water")).memories.map((m) => m.id)).toEqual(["e3"]);
    });

    it("returns copies that do not change what is remembered", async () => {
      const events = [say("e1", "sugar", 1)];
      await ctx.service.addSessionToMemory(session("s1", events));
      events[0]!.content!.parts![0]!.text = "salt";
      const first = await search("sugar");
      first.memories[0]!.content.parts![0]!.text = "changed";
      expect((await search("sugar")).memories[0]?.content.parts?.[0]?.text).toBe("sugar");
    });
  });
}
