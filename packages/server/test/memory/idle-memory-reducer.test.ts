// The idle memory reduction: when it collects (quiet since the last check, nothing in progress,
// new requests since the last reduction), driven tick by tick; then the real collection (the
// young generation handed back, no `gc` left in other contexts); then a listening server's.
import { runInNewContext } from "node:vm";
import { getHeapSpaceStatistics } from "node:v8";
import { describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { collectAllGarbage } from "../../src/memory/collect-all-garbage.js";
import { IdleMemoryReducer } from "../../src/memory/idle-memory-reducer.js";
import { createAgentServer, createStaticAgentLoader, type ServerLogger } from "../../src/index.js";
import { startTestServer } from "../support/test-server.js";

/** A reducer over a fake server, ticked by hand. */
function reducerOver(state: { arrivals: number; idle: boolean }) {
  let tick = () => {};
  let stopped = false;
  const collections: number[] = [];
  const reducer = new IdleMemoryReducer({
    afterMs: 1000,
    arrivals: () => state.arrivals,
    isIdle: () => state.idle,
    collect: () => collections.push(state.arrivals),
    every: (ms, fn) => {
      expect(ms).toBe(1000);
      tick = fn;
      return () => {
        stopped = true;
      };
    },
  });
  return { reducer, tick: () => tick(), collections, stopped: () => stopped };
}

describe("IdleMemoryReducer", () => {
  it("collects once a check finds no request arrived since the one before and nothing in progress", () => {
    const state = { arrivals: 0, idle: true };
    const { tick, collections } = reducerOver(state);
    state.arrivals = 40;
    tick(); // requests arrived since the start: not quiet
    expect(collections).toEqual([]);
    tick(); // quiet for a whole interval
    expect(collections).toEqual([40]);
  });

  it("counts the reductions it ran", () => {
    const state = { arrivals: 0, idle: true };
    const { reducer, tick } = reducerOver(state);
    expect(reducer.reductions).toBe(0);
    state.arrivals = 2;
    tick();
    tick();
    state.arrivals = 3;
    tick();
    tick();
    expect(reducer.reductions).toBe(2);
  });

  it("does not collect again until new requests came and went", () => {
    const state = { arrivals: 5, idle: true };
    const { tick, collections } = reducerOver(state);
    state.arrivals = 6;
    tick();
    tick();
    tick();
    tick();
    expect(collections).toEqual([6]);
    state.arrivals = 9;
    tick();
    expect(collections).toEqual([6]);
    tick();
    expect(collections).toEqual([6, 9]);
  });

  it("never collects on a server that has served nothing, nor while something is in progress", () => {
    const state = { arrivals: 3, idle: true };
    const { tick, collections } = reducerOver(state);
    tick();
    tick();
    expect(collections).toEqual([]);
    state.arrivals = 4;
    state.idle = false; // a long SSE stream, a run or a live socket
    tick();
    tick();
    tick();
    expect(collections).toEqual([]);
    state.idle = true;
    tick();
    expect(collections).toEqual([4]);
  });

  it("stops checking when closed", () => {
    const { reducer, stopped } = reducerOver({ arrivals: 0, idle: true });
    expect(stopped()).toBe(false);
    reducer.close();
    expect(stopped()).toBe(true);
  });
});

describe("collectAllGarbage", () => {
  const youngGeneration = () => getHeapSpaceStatistics().find((space) => space.space_name === "new_space")!.space_size;

  it("hands back the young generation a busy period grew, and leaves no gc in other contexts", () => {
    // Objects that survive young collections make V8 grow the young generation.
    const kept: unknown[] = [];
    for (let i = 0; i < 2_000_000 && youngGeneration() <= 8 * 1_048_576; i++) kept.push({ i, inner: { s: `v${i}` } });
    const grown = youngGeneration();
    expect(grown).toBeGreaterThan(8 * 1_048_576);
    kept.length = 0;
    collectAllGarbage();
    expect(youngGeneration()).toBeLessThan(grown / 4);
    expect(runInNewContext("typeof gc")).toBe("undefined");
    // A second call reuses the function it fetched.
    collectAllGarbage();
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });
});

describe("a listening server's idle memory reduction", () => {
  it("runs after the server went quiet, is logged, and runs again after the next quiet spell", async () => {
    const infos: string[] = [];
    const logger: ServerLogger = { error: () => {}, warn: () => {}, info: (message) => infos.push(message) };
    const server = await startTestServer({ reduceMemoryWhenIdle: { afterMs: 50 }, logger });
    const reductions = () => infos.filter((line) => line.startsWith("Idle for 50 ms: a full collection took"));
    const until = async (count: number) => {
      const deadline = Date.now() + 10_000;
      while (reductions().length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    };
    try {
      expect(server.server.stats().idleMemoryReductions).toBe(0);
      expect((await fetch(`${server.url}/list-apps`)).status).toBe(200);
      await until(1);
      expect(reductions()).toHaveLength(1);
      expect(server.server.stats().idleMemoryReductions).toBe(1);
      expect(reductions()[0]).toMatch(/took \d+ ms, resident memory \d+ → \d+ MiB$/);
      expect((await fetch(`${server.url}/list-apps`)).status).toBe(200);
      await until(2);
      expect(reductions()).toHaveLength(2);
    } finally {
      await server.close();
    }
  });

  it("refuses an idle time that is not a positive number of milliseconds", () => {
    for (const afterMs of [0, -5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() =>
        createAgentServer({
          loader: createStaticAgentLoader({ apps: {} }),
          reduceMemoryWhenIdle: { afterMs },
        } as never),
      ).toThrow(ConfigurationError);
    }
  });
});
