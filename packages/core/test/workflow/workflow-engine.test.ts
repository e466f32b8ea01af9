import { getEventListeners } from "node:events";
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  ConfigurationError,
  DEFAULT_ROUTE,
  Edge,
  ERROR_ROUTE,
  FunctionNode,
  InMemoryRunner,
  JoinNode,
  NodeSchemaValidationError,
  NodeTimeoutError,
  RunAbortedError,
  START,
  Workflow,
  type NodeContext,
} from "../../src/index.js";
import { deferred, outputs, runOnce, textOf } from "./helpers.js";

describe("Workflow: ADK's basic shapes", () => {
  it("chains FunctionNodes from START, each output the next input", async () => {
    const upper = new FunctionNode("upper", (_ctx, input) => textOf(input).toUpperCase());
    const suffix = new FunctionNode("suffix", (_ctx, input: string) => `${input} IS AWESOME`);
    const { events, session } = await runOnce(
      new Workflow({ name: "simple", edges: [["START", upper, suffix]] }),
      "adk",
    );
    expect(outputs(events)).toEqual([
      ["upper", "ADK"],
      ["suffix", "ADK IS AWESOME"],
    ]);
    // Every node event is an ordinary session event, authored by the node, with its path.
    expect(session.events.map((e) => [e.author, e.nodeInfo?.path])).toEqual([
      ["user", undefined],
      ["upper", "simple/upper@1"],
      ["suffix", "simple/suffix@1"],
    ]);
  });

  it("routes on ctx.route through a routing map, with a default route", async () => {
    const seen: string[] = [];
    const classify = new FunctionNode("classify", (ctx, input) => {
      const text = textOf(input);
      ctx.route = text.includes("?") ? "question" : text.includes("!") ? "shout" : "other";
      return text;
    });
    const answer = new FunctionNode("answer", (_c, i: string) => void seen.push(`answer:${i}`));
    const comment = new FunctionNode("comment", (_c, i: string) => void seen.push(`comment:${i}`));
    const fallback = new FunctionNode("fallback", (_c, i: string) => void seen.push(`fallback:${i}`));
    const wf = () =>
      new Workflow({
        name: "router",
        edges: [["START", classify, { question: answer, shout: comment, [DEFAULT_ROUTE]: fallback }]],
      });
    await runOnce(wf(), "why?");
    await runOnce(wf(), "wow!");
    await runOnce(wf(), "ok");
    expect(seen).toEqual(["answer:why?", "comment:wow!", "fallback:ok"]);
  });

  it("accepts the START constant, explicit Edges and functions named after the node", async () => {
    function first(_ctx: NodeContext, input: unknown) {
      return textOf(input).length;
    }
    function second(_ctx: NodeContext, input: number) {
      return input * 2;
    }
    const { events } = await runOnce(
      new Workflow({ name: "w", edges: [[START, first], new Edge({ from: first, to: second })] }),
      "four",
    );
    expect(outputs(events)).toEqual([
      ["first", 4],
      ["second", 8],
    ]);
  });
});

describe("Workflow: fan-out, joins and branches", () => {
  it("fans out to parallel nodes on their own branches and joins their outputs", async () => {
    const gate = deferred();
    const a = new FunctionNode("a", async () => {
      await gate.promise; // a finishes after b: the join still gets both
      return "A";
    });
    const b = new FunctionNode("b", () => {
      gate.resolve();
      return "B";
    });
    const join = new JoinNode({ name: "merge" });
    const after = new FunctionNode("after", (_c, input: Record<string, string>) => `${input.a}+${input.b}`);
    const { events } = await runOnce(new Workflow({ name: "fan", edges: [["START", [a, b], join, after]] }));
    expect(outputs(events)).toEqual([
      ["b", "B"],
      ["a", "A"],
      ["merge", { a: "A", b: "B" }],
      ["after", "A+B"],
    ]);
    const branchOf = (author: string) => events.find((e) => e.author === author)!.branch;
    expect([branchOf("a"), branchOf("b"), branchOf("merge"), branchOf("after")]).toEqual([
      "fan.a",
      "fan.b",
      undefined,
      undefined,
    ]);
  });

  it("a join waiting for 'all' runs with the predecessors a route took", async () => {
    const pick = new FunctionNode("pick", (ctx) => {
      ctx.route = "left";
      return "x";
    });
    const left = new FunctionNode("left", () => "L");
    const right = new FunctionNode("right", () => "R");
    const join = new JoinNode({ name: "join" });
    const { events } = await runOnce(
      new Workflow({
        name: "w",
        edges: [
          ["START", pick, { left, right }],
          [[left, right], join],
        ],
      }),
    );
    expect(outputs(events).at(-1)).toEqual(["join", { left: "L" }]);
  });

  it("a join with waitFor 1 runs on the first arrival and drops the rest of the round", async () => {
    const slowGate = deferred();
    const fast = new FunctionNode("fast", () => "fast wins");
    const slow = new FunctionNode("slow", async () => {
      await slowGate.promise;
      return "too late";
    });
    const ran: unknown[] = [];
    const join = new JoinNode({ name: "first", waitFor: 1 });
    const done = new FunctionNode("done", (_c, input) => {
      ran.push(input);
      slowGate.resolve();
    });
    await runOnce(new Workflow({ name: "race", edges: [["START", [fast, slow], join, done]] }));
    expect(ran).toEqual([{ fast: "fast wins" }]);
  });

  it("limits running nodes to maxConcurrency", async () => {
    let running = 0;
    let peak = 0;
    const make = (name: string) =>
      new FunctionNode(name, async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((r) => setImmediate(r));
        running--;
        return name;
      });
    const nodes = ["n1", "n2", "n3", "n4", "n5"].map(make);
    const { events } = await runOnce(new Workflow({ name: "w", maxConcurrency: 2, edges: [["START", nodes]] }));
    expect(peak).toBe(2);
    expect(outputs(events)).toHaveLength(5);
  });
});

describe("Workflow: loops", () => {
  it("loops on a routed edge and keeps node-local state across the loop's runs", async () => {
    const step = new FunctionNode("step", (ctx) => {
      const count = ((ctx.nodeState.count as number | undefined) ?? 0) + 1;
      ctx.nodeState.count = count;
      ctx.route = count < 3 ? "again" : "done";
      return count;
    });
    const finish = new FunctionNode("finish", (_c, n: number) => `counted ${n}`);
    const { events } = await runOnce(
      new Workflow({ name: "loop", edges: [["START", step, { again: step, done: finish }]] }),
    );
    expect(outputs(events)).toEqual([
      ["step", 1],
      ["step", 2],
      ["step", 3],
      ["finish", "counted 3"],
    ]);
    expect(events.filter((e) => e.author === "step").map((e) => e.nodeInfo?.path)).toEqual([
      "loop/step@1",
      "loop/step@2",
      "loop/step@3",
    ]);
  });

  it("bounds a loop with maxTraversals, then takes the default route", async () => {
    const work = new FunctionNode("work", (ctx) => {
      ctx.route = "retry";
      return "not yet";
    });
    const giveUp = new FunctionNode("give_up", () => "gave up");
    const { events } = await runOnce(
      new Workflow({
        name: "bounded",
        edges: [
          ["START", work],
          new Edge({ from: work, to: work, route: "retry", maxTraversals: 2 }),
          [work, { [DEFAULT_ROUTE]: giveUp }],
        ],
      }),
    );
    expect(outputs(events).map(([author]) => author)).toEqual(["work", "work", "work", "give_up"]);
  });

  it("refuses a loop that could never end", () => {
    const a = new FunctionNode("a", () => 1);
    const b = new FunctionNode("b", () => 2);
    expect(() => new Workflow({ name: "forever", edges: [["START", a, b, a]] })).toThrow(/would never end/);
  });

  it("joins a fan-out of 20,000 branches: the join gets every output once", async () => {
    const branches = Array.from({ length: 20_000 }, (_, i) => new FunctionNode(`b${i}`, () => i));
    const join = new JoinNode({ name: "join" });
    const { events } = await runOnce(
      new Workflow({ name: "wide", edges: [["START", new FunctionNode("split", () => 0), branches, join]] }),
      "go",
    );
    const joined = outputs(events).find(([author]) => author === "join")![1] as Record<string, number>;
    expect(Object.keys(joined)).toHaveLength(20_000);
    expect(joined.b0).toBe(0);
    expect(joined.b19999).toBe(19_999);
    expect(outputs(events).filter(([author]) => author === "join")).toHaveLength(1);
  });

  it("checks a chain of 20,000 nodes, and finds a loop closed at the end of a long one", () => {
    // The graph checks walk it on a stack of their own (a recursive walk overflowed the call
    // stack) and find a duplicate edge by its key (a scan of the edges took 40 s here).
    const chain = Array.from({ length: 20_000 }, (_, i) => new FunctionNode(`n${i}`, () => i));
    const workflow = new Workflow({ name: "long", edges: [["START", ...chain]] });
    expect(workflow.name).toBe("long");
    const loop = chain.slice(0, 5_000);
    expect(() => new Workflow({ name: "long_loop", edges: [["START", ...loop, loop[4_990]!]] })).toThrow(
      "the loop n4990 -> n4991 -> n4992 -> n4993 -> n4994 -> n4995 -> n4996 -> n4997 -> n4998 -> n4999 -> n4990 has no routed or bounded edge",
    );
    expect(
      () =>
        new Workflow({
          name: "twice",
          edges: [
            ["START", ...chain],
            [chain[9_998]!, chain[9_999]!],
          ],
        }),
    ).toThrow('Workflow "twice": the edge n9998 -> n9999 is declared twice.');
  });
});

describe("Workflow: retries, timeouts, errors", () => {
  it("retries a failing node with backoff, only for the errors it names", async () => {
    let calls = 0;
    class Flaky extends Error {
      override name = "Flaky";
    }
    const flaky = new FunctionNode(
      "flaky",
      () => {
        calls++;
        if (calls < 3) throw new Flaky(`attempt ${calls}`);
        return `ok after ${calls}`;
      },
      { retryConfig: { maxAttempts: 3, initialDelayMs: 1, retryOn: [Flaky] } },
    );
    const { events } = await runOnce(new Workflow({ name: "w", edges: [["START", flaky]] }));
    expect(outputs(events)).toEqual([["flaky", "ok after 3"]]);

    let other = 0;
    const notRetried = new FunctionNode(
      "strict",
      () => {
        other++;
        throw new TypeError("bad");
      },
      { retryConfig: { maxAttempts: 3, initialDelayMs: 1, retryOn: ["Flaky"] } },
    );
    await expect(runOnce(new Workflow({ name: "w2", edges: [["START", notRetried]] }))).rejects.toThrow("bad");
    expect(other).toBe(1);
  });

  it("fails a node past its timeout even when it ignores its signal, and retries the timeout", async () => {
    let attempts = 0;
    let aborted = 0;
    const stuck = new FunctionNode(
      "stuck",
      (ctx) => {
        attempts++;
        ctx.signal!.addEventListener("abort", () => aborted++);
        return new Promise(() => {}); // never settles
      },
      { timeoutMs: 20, retryConfig: { maxAttempts: 2, initialDelayMs: 1 } },
    );
    const error = await runOnce(new Workflow({ name: "w", edges: [["START", stuck]] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NodeTimeoutError);
    expect(attempts).toBe(2);
    expect(aborted).toBe(2);
  });

  it("routes a failed node's error down its __ERROR__ edge", async () => {
    const failing = new FunctionNode("charge", () => {
      throw new ConfigurationError("card declined"); // never retried, still routable
    });
    const recover = new FunctionNode(
      "recover",
      (_c, input: { error: { code: string; message: string } }) => input.error.code,
    );
    const next = new FunctionNode("next", () => "not reached");
    const { events } = await runOnce(
      new Workflow({
        name: "pay",
        edges: [
          ["START", failing, next],
          [failing, { [ERROR_ROUTE]: recover }],
        ],
      }),
    );
    const failure = events.find((e) => e.author === "charge")!;
    expect(failure.nodeInfo).toEqual({ path: "pay/charge@1", status: "failed" });
    expect(failure.errorCode).toBe("CONFIGURATION_ERROR");
    expect(outputs(events)).toEqual([["recover", "CONFIGURATION_ERROR"]]);
  });

  it("an unrouted failure is stored as the node's error event and ends the run with the error", async () => {
    const failing = new FunctionNode("boom", () => {
      throw new Error("exploded");
    });
    const runner = new InMemoryRunner({
      agent: new Workflow({ name: "w", edges: [["START", failing]] }),
      appName: "app",
    });
    await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const run = async () => {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: "s", newMessage: "go" }));
    };
    await expect(run()).rejects.toThrow("exploded");
    const session = await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" });
    expect(session!.events.at(-1)).toMatchObject({
      author: "boom",
      errorCode: "NODE_FAILED",
      errorMessage: "exploded",
      nodeInfo: { path: "w/boom@1" },
    });
  });

  it("checks typed input and output against the nodes' zod schemas", async () => {
    const parse = new FunctionNode("parse", (_c, input) => JSON.parse(textOf(input)) as unknown);
    const total = new FunctionNode("total", (_c, order: { qty: number; price: number }) => order.qty * order.price, {
      inputSchema: z.object({ qty: z.number(), price: z.number() }),
      outputSchema: z.number().max(100),
    });
    const wf = () => new Workflow({ name: "typed", edges: [["START", parse, total]] });
    expect(outputs((await runOnce(wf(), '{"qty":2,"price":3}')).events).at(-1)).toEqual(["total", 6]);
    const badInput = await runOnce(wf(), '{"qty":"two","price":3}').catch((e: unknown) => e);
    expect(badInput).toBeInstanceOf(NodeSchemaValidationError);
    expect((badInput as Error).message).toMatch(/input of node "total".*qty/);
    const badOutput = await runOnce(wf(), '{"qty":200,"price":3}').catch((e: unknown) => e);
    expect((badOutput as NodeSchemaValidationError).direction).toBe("output");
  });
});

describe("Workflow: cancellation", () => {
  it("listens to the caller's signal with a fixed number of listeners, whatever the fan-out, and leaves none behind", async () => {
    const controller = new AbortController();
    let mostListeners = 0;
    const branch = (i: number) =>
      new FunctionNode(`b${i}`, async (ctx) => {
        // Every branch is running (the fan-out starts them all before any ends): count now.
        await new Promise((resolve) => setImmediate(resolve));
        mostListeners = Math.max(mostListeners, getEventListeners(controller.signal, "abort").length);
        expect(ctx.signal!.aborted).toBe(false);
        return i;
      });
    const fanOut = new Workflow({
      name: "fan",
      edges: [["START", new FunctionNode("split", () => 0), Array.from({ length: 200 }, (_, i) => branch(i))]],
    });
    const { events } = await runOnce(fanOut, "go", { signal: controller.signal });
    expect(events.filter((e) => e.nodeInfo?.status === "completed").length).toBeGreaterThanOrEqual(201);
    expect(mostListeners).toBeGreaterThan(0);
    expect(mostListeners).toBeLessThan(10);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("stops running nodes when the invocation's signal aborts", async () => {
    const started = deferred();
    let nodeAborted = false;
    const waiting = new FunctionNode(
      "waits",
      (ctx) =>
        new Promise((_, reject) => {
          started.resolve();
          ctx.signal!.addEventListener("abort", () => {
            nodeAborted = true;
            reject(new Error("stopped"));
          });
        }),
    );
    const controller = new AbortController();
    void started.promise.then(() => controller.abort());
    await expect(
      runOnce(new Workflow({ name: "w", edges: [["START", waiting]] }), "go", { signal: controller.signal }),
    ).rejects.toBeInstanceOf(RunAbortedError);
    expect(nodeAborted).toBe(true);
  });
});
