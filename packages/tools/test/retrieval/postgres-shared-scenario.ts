// One behaviour script run against InMemoryVectorStore and PostgresVectorStore: it asserts the
// documented behaviour and returns everything it observed, so the two logs can be compared.
import { expect } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import type { VectorMatch, VectorRecord, VectorStore } from "../../src/retrieval/index.js";

export type Observation = [step: string, result: unknown];

const R = (id: string, vector: number[], metadata: VectorRecord["metadata"] = {}): VectorRecord => ({
  id,
  text: `text of ${id}`,
  vector,
  metadata,
});

/** id and score rounded far below any real difference (the raw scores are compared separately). */
const ranked = (matches: VectorMatch[]) => matches.map((m) => [m.id, Number(m.score.toFixed(9))]);
/** cos 45°, the score of a vector at 45° to the query, rounded as `ranked` rounds. */
const COS_45 = Number(Math.SQRT1_2.toFixed(9));

export async function vectorStoreScenario(store: VectorStore): Promise<Observation[]> {
  const log: Observation[] = [];
  const see = <T>(step: string, result: T): T => {
    log.push([step, result]);
    return result;
  };
  const search = async (step: string, ...args: Parameters<VectorStore["search"]>) =>
    see(step, await store.search(...args));

  expect(see("empty size", await store.size())).toBe(0);
  expect(await search("empty search", [1, 0, 0])).toEqual([]);

  await store.upsert([
    R("a", [1, 0, 0], { topic: "x", n: 1, flag: true }),
    R("b", [1, 1, 0], { topic: "y" }),
    R("c", [0, 1, 0], { topic: "x" }),
    R("d", [2, 0, 0], { topic: "y", n: 1.5 }), // same direction as a: ties with it at 1
    R("z", [0, 0, 0], { topic: "x" }), // zero norm: scores 0
    R("e", [-1, 0, 0], { topic: "y", n: 2, flag: false }),
  ]);
  expect(see("size after upsert", await store.size())).toBe(6);

  const top = await search("default topK", [1, 0, 0]);
  expect(ranked(top)).toEqual([
    ["a", 1],
    ["d", 1],
    ["b", COS_45],
    ["c", 0],
    ["z", 0],
  ]);
  expect(top[0]).toEqual({ id: "a", text: "text of a", metadata: { topic: "x", n: 1, flag: true }, score: 1 });
  expect(ranked(await search("topK 2", [1, 0, 0], { topK: 2 }))).toEqual([
    ["a", 1],
    ["d", 1],
  ]);
  expect(ranked(await search("topK beyond size", [1, 0, 0], { topK: 50 })).map(([id]) => id)).toEqual([
    "a",
    "d",
    "b",
    "c",
    "z",
    "e",
  ]);
  expect((await search("scaled query", [3, 0.5, 0], { topK: 3 })).map((m) => m.id)).toEqual(["a", "d", "b"]);

  expect((await search("filter topic", [1, 0, 0], { filter: { topic: "x" } })).map((m) => m.id)).toEqual([
    "a",
    "c",
    "z",
  ]);
  expect((await search("filter two keys", [1, 0, 0], { filter: { topic: "x", n: 1 } })).map((m) => m.id)).toEqual([
    "a",
  ]);
  expect((await search("filter boolean", [1, 0, 0], { filter: { flag: false } })).map((m) => m.id)).toEqual(["e"]);
  expect((await search("filter float", [1, 0, 0], { filter: { n: 1.5 } })).map((m) => m.id)).toEqual(["d"]);
  expect(await search("filter string is not number", [1, 0, 0], { filter: { n: "1" } })).toEqual([]);
  expect(await search("filter no match", [1, 0, 0], { filter: { topic: "none" } })).toEqual([]);
  expect((await search("empty filter", [1, 0, 0], { filter: {}, topK: 10 })).length).toBe(6);

  expect(ranked(await search("minScore 0.5", [1, 0, 0], { minScore: 0.5 }))).toEqual([
    ["a", 1],
    ["d", 1],
    ["b", COS_45],
  ]);
  expect((await search("minScore 0 keeps zeros", [1, 0, 0], { minScore: 0, topK: 10 })).map((m) => m.id)).toEqual([
    "a",
    "d",
    "b",
    "c",
    "z",
  ]);
  expect((await search("minScore -1 keeps all", [1, 0, 0], { minScore: -1, topK: 10 })).map((m) => m.id)).toEqual([
    "a",
    "d",
    "b",
    "c",
    "z",
    "e",
  ]);
  expect(await search("minScore above all", [1, 0, 0], { minScore: 1.5 })).toEqual([]);
  expect(
    (await search("filter + minScore + topK", [0, 1, 0], { filter: { topic: "x" }, minScore: -0.5, topK: 2 })).map(
      (m) => m.id,
    ),
  ).toEqual(["c", "a"]);

  // A zero query vector scores everything 0: ties in id order.
  expect(ranked(await search("zero query", [0, 0, 0]))).toEqual([
    ["a", 0],
    ["b", 0],
    ["c", 0],
    ["d", 0],
    ["e", 0],
  ]);

  // Upsert replaces text, vector and metadata of an existing id.
  await store.upsert([{ id: "a", text: "new a", vector: [0, 1, 0], metadata: { topic: "y" } }]);
  expect(see("size after replace", await store.size())).toBe(6);
  const replaced = await search("after replace", [0, 1, 0], { topK: 3 });
  expect(ranked(replaced)).toEqual([
    ["a", 1],
    ["c", 1],
    ["b", COS_45],
  ]);
  expect(replaced[0]).toMatchObject({ text: "new a", metadata: { topic: "y" } });
  expect((await search("replaced metadata", [1, 0, 0], { filter: { topic: "x" } })).map((m) => m.id)).toEqual([
    "c",
    "z",
  ]);

  // A repeated id in one batch: the last record wins.
  await store.upsert([R("f", [0, 0, 1], { v: 1 }), R("f", [0, 0, -1], { v: 2 })]);
  expect(see("size after repeated id", await store.size())).toBe(7);
  expect(await search("repeated id", [0, 0, -1], { topK: 1 })).toEqual([
    { id: "f", text: "text of f", metadata: { v: 2 }, score: 1 },
  ]);

  // The store keeps its own copies: mutating inputs or results changes nothing.
  const input = R("g", [0, 0, 2], { tag: "orig" });
  await store.upsert([input]);
  input.vector[2] = -2;
  input.metadata.tag = "mutated";
  const g = await search("copies", [0, 0, 1], { topK: 1, filter: { tag: "orig" } });
  expect(ranked(g)).toEqual([["g", 1]]);
  g[0]!.metadata.tag = "changed";
  expect((await store.search([0, 0, 1], { topK: 1, filter: { tag: "orig" } })).map((m) => m.id)).toEqual(["g"]);

  await store.delete(["a", "missing"]);
  await store.delete([]);
  expect(see("size after delete", await store.size())).toBe(7);
  expect((await search("after delete", [0, 1, 0], { topK: 10 })).map((m) => m.id)).not.toContain("a");

  // Bad input: typed errors, nothing stored.
  await expect(store.search([1, 0, 0], { topK: 0 })).rejects.toThrow(ConfigurationError);
  await expect(store.search([1, 0, 0], { topK: 1.5 })).rejects.toThrow(/topK must be a positive integer/);
  await expect(store.search([1, 0, 0, 0])).rejects.toThrow(/4 dimensions; this store holds 3-dimensional/);
  await expect(store.search([1, Number.NaN, 0])).rejects.toThrow(ConfigurationError);
  await expect(store.upsert([R("h", [1, 0])])).rejects.toThrow(/2 dimensions; this store holds 3-dimensional/);
  await expect(store.upsert([R("h", [])])).rejects.toThrow(ConfigurationError);
  expect(see("size after bad input", await store.size())).toBe(7);

  // Ties between ids of mixed case and punctuation: code-unit order in both stores (not locale order).
  const tieIds = ["a-b#0", "a#0", "B_1", "a:1", "Zed", "a_1"];
  await store.upsert(tieIds.map((id) => R(id, [5, 5, 5], { tie: true })));
  const ties = await search("tie order", [1, 1, 1], { filter: { tie: true }, topK: 10 });
  expect(ties.map((m) => m.id)).toEqual(["B_1", "Zed", "a#0", "a-b#0", "a:1", "a_1"]);
  await store.delete(tieIds);
  return log;
}
