import { afterEach, describe, expect, it, jest } from "@jest/globals";
import { type McpTool, McpToolset } from "../src/index.js";
import { startFixtureHttpServer } from "./fixtures/http-server.js";
import { activeResources, childPids, makeToolContext, stdioFixture, waitFor } from "./helpers.js";

jest.setTimeout(180_000);

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Runs `total` calls of `add`, `concurrency` at a time, checking every answer. */
async function hammer(set: McpToolset, total: number, concurrency: number): Promise<void> {
  const add = (await set.getTools()).find((t) => t.name === "add") as McpTool;
  const toolContext = await makeToolContext();
  for (let start = 0; start < total; start += concurrency) {
    const batch = Array.from({ length: Math.min(concurrency, total - start) }, (_, i) => start + i);
    const results = await Promise.all(batch.map((n) => add.runAsync({ args: { a: n, b: 1 }, toolContext })));
    results.forEach((r, i) => {
      expect(r.text).toBe(String(batch[i]! + 1));
    });
  }
}

/**
 * Resource counts, taken at the same point (right after a batch at the same concurrency), may
 * wobble by a few (sockets in keep-alive, a pending timer) but must not grow with the call count.
 */
function expectNoGrowth(before: Record<string, number>, after: Record<string, number>): void {
  const grown = Object.entries(after).filter(([type, count]) => count > (before[type] ?? 0) + 3);
  expect(grown).toEqual([]);
}

describe("soak", () => {
  it("2,000 calls over streamable HTTP keep one session and no growing handles", async () => {
    const server = await startFixtureHttpServer();
    cleanup.push(() => server.close());
    const set = new McpToolset({ connection: { type: "streamable-http", url: server.mcpUrl } });
    cleanup.push(() => set.close());
    // Warm up at the same concurrency: the HTTP pool legitimately opens one socket per concurrent call.
    await hammer(set, 100, 20);
    const before = activeResources();
    await hammer(set, 2000, 20);
    const after = activeResources();
    expectNoGrowth(before, after);
    expect(server.sessionCount()).toBe(1);
    // No reconnect along the way: the session of the warm-up is the only one ever opened.
    expect(server.sessionsOpened()).toBe(1);
  });

  it("300 calls over stdio keep one child process and no growing handles", async () => {
    const baseline = childPids();
    const set = new McpToolset({ connection: stdioFixture() });
    cleanup.push(() => set.close());
    await hammer(set, 30, 10);
    const before = activeResources();
    const children = childPids().filter((p) => !baseline.includes(p));
    expect(children).toHaveLength(1);
    await hammer(set, 300, 10);
    expectNoGrowth(before, activeResources());
    expect(childPids().filter((p) => !baseline.includes(p))).toEqual(children);
    await set.close();
    await waitFor(() => childPids().filter((p) => !baseline.includes(p)).length === 0);
  });
});
