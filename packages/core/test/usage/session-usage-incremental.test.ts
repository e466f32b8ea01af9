// The usage before a run is read incrementally (a walk kept between runs); it must be exactly what
// the full walk over the stored events gives, on any history.
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { describe, expect, it } from "@jest/globals";
import {
  App,
  LlmAgent,
  LlmEventSummarizer,
  MODEL_METADATA_KEY,
  PriceTable,
  USAGE_METADATA_KEY,
  createEvent,
  sessionUsageFromEvents,
  type Event,
  type EventInit,
  type Runner,
  type UsageRollup,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { SessionUsageCache } from "../../src/usage/session-usage-cache.js";
import { addRollup, cloneRollup } from "../../src/usage/usage-rollup.js";
import {
  FakeClock,
  PRICES,
  call,
  clockTool,
  makeRunner,
  newSession,
  run,
  storedEvents,
  text,
  usage,
  usageOf,
} from "./helpers.js";

/** Numbers in [0, 1) from a seed (a failure names its seed and replays exactly). */
function random(seed: number): () => number {
  const rng = new SeededRandom(seed);
  return () => rng.next();
}

const MODELS = ["m-a", "m-b", "gpt-4o", "__proto__", "constructor"];
const prices = new PriceTable({ prices: PRICES });

/** A stored rollup as a run writes it, or as foreign data may carry it (odd numbers, wrong shapes). */
function rollupValue(r: () => number, foreign: boolean): unknown {
  const n = () => (foreign && r() < 0.3 ? pickOdd(r) : Math.floor(r() * 1000) + (r() < 0.2 ? 0.1 : 0));
  const model = MODELS[Math.floor(r() * MODELS.length)]!;
  const tokens = { prompt: n(), candidates: n(), cached: n(), thoughts: n(), toolUsePrompt: n(), total: n() };
  return { tokens, modelCalls: n(), toolCalls: n(), durationMs: n(), models: { [model]: { tokens, modelCalls: n() } } };
}

function pickOdd(r: () => number): unknown {
  const odd = [-1, Number.NaN, "12", null, undefined, 1e300, 0.1 + 0.2];
  return odd[Math.floor(r() * odd.length)];
}

/**
 * A history with every shape the walk reads: model calls with usage (several models, fractional
 * counts that make the order of additions visible), tool calls and responses, final answers with
 * stored rollups (valid, foreign, malformed, with or without a session part), partial events,
 * invocations of the user alone, late events of an older invocation (a resumed run), rewinds and
 * compactions, timestamps out of order.
 */
function history(seed: number, length: number): Event[] {
  const r = random(seed);
  const events: Event[] = [];
  const invocations: string[] = [];
  let time = 1_000;
  const push = (init: EventInit) => {
    time += r() < 0.1 ? -0.5 : r();
    events.push(createEvent({ timestamp: time, ...init }));
  };
  while (events.length < length) {
    const late = invocations.length > 2 && r() < 0.08;
    const inv = late ? invocations[Math.floor(r() * invocations.length)]! : `e-${invocations.length}`;
    if (!late) invocations.push(inv);
    const roll = r();
    const model = MODELS[Math.floor(r() * MODELS.length)]!;
    const meta = r() < 0.3 ? { [MODEL_METADATA_KEY]: model } : undefined;
    if (!late) push({ invocationId: inv, author: "user", content: { role: "user", parts: [{ text: "q" }] } });
    if (roll < 0.1) continue; // the user alone
    if (roll < 0.2) {
      push({ invocationId: inv, author: "a", partial: true, content: { role: "model", parts: [{ text: "pa" }] } });
    }
    if (roll < 0.6) {
      push({
        invocationId: inv,
        author: "a",
        modelVersion: model,
        ...(meta ? { customMetadata: meta } : {}),
        usageMetadata: usage(Math.floor(r() * 100), Math.floor(r() * 10), { thoughtsTokenCount: r() < 0.3 ? 0.5 : 0 }),
        content: { role: "model", parts: [{ functionCall: { id: `c${events.length}`, name: "t", args: {} } }] },
      });
      push({
        invocationId: inv,
        author: "a",
        content: {
          role: "user",
          parts: [{ functionResponse: { id: `c${events.length - 1}`, name: "t", response: {} } }],
        },
      });
    }
    const stored = r();
    const customMetadata: Record<string, unknown> = { ...meta };
    if (stored < 0.5) {
      const foreign = stored < 0.15;
      customMetadata[USAGE_METADATA_KEY] = {
        invocation: rollupValue(r, foreign),
        // A session part that is not the session's (copied from elsewhere, or made up).
        ...(r() < 0.7 ? { session: rollupValue(r, true) } : {}),
      };
    } else if (stored < 0.6) {
      customMetadata[USAGE_METADATA_KEY] = { session: rollupValue(r, false) }; // no invocation part
    }
    push({
      invocationId: inv,
      author: "a",
      modelVersion: model,
      customMetadata,
      ...(r() < 0.7 ? { usageMetadata: usage(Math.floor(r() * 50), Math.floor(r() * 5)) } : {}),
      content: { role: "model", parts: [{ text: "answer" }] },
    });
    if (r() < 0.05 && invocations.length > 3) {
      push({
        invocationId: `e-rw-${events.length}`,
        author: "user",
        actions: { rewindBeforeInvocationId: invocations[Math.floor(r() * invocations.length)]! },
      });
    }
    if (r() < 0.05) {
      push({
        invocationId: `e-cp-${events.length}`,
        author: "user",
        usageMetadata: usage(40, 4),
        actions: {
          compaction: {
            startTimestamp: 1_000,
            endTimestamp: time,
            compactedContent: { role: "model", parts: [{ text: "summary" }] },
          },
        },
      });
    }
  }
  return events;
}

const fullTotal = (events: readonly Event[]) => JSON.stringify(sessionUsageFromEvents(events, prices).total);

/** An event whose every property read is counted (to see whether a walk reads it again). */
function watched(event: Event): { event: Event; reads: () => number } {
  let reads = 0;
  const proxy = new Proxy(event, {
    get(target, key, receiver) {
      reads += 1;
      return Reflect.get(target, key, receiver);
    },
  });
  return { event: proxy, reads: () => reads };
}

/** The history without late events of older invocations: every invocation's events are contiguous. */
function contiguous(events: readonly Event[]): Event[] {
  const ordered: Event[] = [];
  const done = new Set<string>();
  for (const event of events) {
    const current = ordered.at(-1)?.invocationId;
    if (event.invocationId !== current && done.has(event.invocationId)) continue;
    if (current !== undefined && event.invocationId !== current) done.add(current);
    ordered.push(event);
  }
  return ordered;
}

describe("incremental session usage equals the full walk", () => {
  it.each(Array.from({ length: 12 }, (_, i) => 2000 + i))("seed %i, growing step by step", (seed) => {
    const events = history(seed, 400);
    const r = random(seed * 7);
    const cache = new SessionUsageCache();
    let k = 0;
    while (k < events.length) {
      k = Math.min(events.length, k + 1 + Math.floor(r() * 10));
      // As the runner does: a new array per read (a session view), counted up to the run's start.
      const view = r() < 0.5 ? events.slice(0, k) : events.slice();
      const incremental = JSON.stringify(cache.totalBefore(view, k, prices));
      const full = fullTotal(events.slice(0, k));
      if (incremental !== full)
        throw new Error(`seed ${seed}, ${k} events:\n  incremental ${incremental}\n  full ${full}`);
    }
  });

  it("before the first event (a new session's first run), whatever the list holds after it", () => {
    const cache = new SessionUsageCache();
    const events = history(3, 20);
    expect(JSON.stringify(cache.totalBefore([], 0, prices))).toBe(fullTotal([]));
    expect(JSON.stringify(cache.totalBefore(events, 0, prices))).toBe(fullTotal([]));
    // Nothing was kept for the empty prefix: the next read walks its events in full.
    expect(JSON.stringify(cache.totalBefore(events, events.length, prices))).toBe(fullTotal(events));
  });

  it("reads only the events appended since the kept walk, and walks again when an old invocation continues", () => {
    const ordered = contiguous(history(7, 200));
    expect(ordered.length).toBeGreaterThan(150);
    const cache = new SessionUsageCache();
    cache.totalBefore(ordered.slice(0, 100), 100, prices);

    // The first event is watched: extending the kept walk never reads it.
    const first = watched(ordered[0]!);
    const grown = [first.event, ...ordered.slice(1, 150)];
    // Keyed by object: the watched copy must not break the prefix check (index 0 is not the key).
    expect(JSON.stringify(cache.totalBefore(grown, 150, prices))).toBe(fullTotal(ordered.slice(0, 150)));
    expect(first.reads()).toBe(0);

    // A later event of the session's first invocation (a resumed run): that invocation was sealed,
    // so the walk starts again (and reads the first event), with the same result as a full walk.
    const late = createEvent({
      invocationId: ordered[0]!.invocationId,
      author: "a",
      usageMetadata: usage(5, 5),
      content: { role: "model", parts: [{ text: "late" }] },
    });
    const resumed = [...grown, late];
    expect(JSON.stringify(cache.totalBefore(resumed, resumed.length, prices))).toBe(
      fullTotal([...ordered.slice(0, 150), late]),
    );
    expect(first.reads()).toBeGreaterThan(0);
  });

  it("a compaction summary naming a sealed invocation continues the kept walk, and counts for nothing", () => {
    const ordered = contiguous(history(7, 200)).filter((e) => !e.actions.compaction);
    const cache = new SessionUsageCache();
    cache.totalBefore(ordered.slice(0, 100), 100, prices);
    const first = watched(ordered[0]!);
    // What tail retention appends after a run: a summary with the id of the last invocation it
    // covers (sealed by then), a later time, and (here) usage of its own.
    const summary = createEvent({
      invocationId: ordered[0]!.invocationId,
      author: "user",
      timestamp: ordered[99]!.timestamp + 1000,
      usageMetadata: usage(40, 4),
      actions: {
        compaction: { startTimestamp: 0, endTimestamp: 1, compactedContent: { role: "model", parts: [{ text: "s" }] } },
      },
    });
    const grown = [first.event, ...ordered.slice(1, 100), summary, ...ordered.slice(100, 120)];
    expect(JSON.stringify(cache.totalBefore(grown, grown.length, prices))).toBe(
      fullTotal([...ordered.slice(0, 100), summary, ...ordered.slice(100, 120)]),
    );
    expect(first.reads()).toBe(0);
    expect(fullTotal([...ordered.slice(0, 100), summary])).toBe(fullTotal(ordered.slice(0, 100)));
  });

  it("a history that does not continue the kept walk (other objects, shorter) is walked in full", () => {
    const events = history(11, 120).slice(0, 120);
    const cache = new SessionUsageCache();
    cache.totalBefore(events, 120, prices);
    // The same events read back from a database: equal values, new objects.
    const reread = events.map((e) => structuredClone(e));
    expect(JSON.stringify(cache.totalBefore(reread, 80, prices))).toBe(fullTotal(events.slice(0, 80)));
    expect(JSON.stringify(cache.totalBefore(events, 60, prices))).toBe(fullTotal(events.slice(0, 60)));
    expect(JSON.stringify(cache.totalBefore(events, 120, prices))).toBe(fullTotal(events));
    expect(JSON.stringify(cache.totalBefore([], 0, prices))).toBe(fullTotal([]));
  });
});

/** The session rollup a run must store: the full walk of the events before it plus the run's own usage. */
function expectedSession(runner: Runner, before: readonly Event[], invocation: UsageRollup): UsageRollup {
  const total = cloneRollup(sessionUsageFromEvents(before, runner.prices).total);
  addRollup(total, invocation);
  return runner.prices.priceRollup(total);
}

describe("the session rollups runs store, on real sessions", () => {
  /** Runs one turn and checks its stored session rollup against the full walk of the history before it. */
  async function turn(runner: Runner, message: string, sessionId = "s1"): Promise<void> {
    const before = await storedEvents(runner, sessionId);
    const { events, error } = await run(runner, message, { sessionId });
    expect(error).toBeUndefined();
    const snapshot = usageOf(events.at(-1))!;
    expect(snapshot).toBeDefined();
    expect(snapshot.session).toEqual(expectedSession(runner, before, snapshot.invocation));
  }

  it("long, rewound and forked sessions, and stored rollups that are missing or foreign", async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel();
    for (let i = 0; i < 200; i++) model.push(call("work", usage(100 + i, 10)), text(`a${i}`, usage(120 + i, 12 + i)));
    const agent = new LlmAgent({ name: "root", model, tools: [clockTool(clock)] });
    const runner = makeRunner({ agent, prices: PRICES, clock });
    await newSession(runner);
    for (let i = 0; i < 40; i++) await turn(runner, `q${i}`);

    // Imported events: a final answer whose rollups are not this session's (a huge session part,
    // an invocation part of another model), one with a malformed rollup, one with none.
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: "u", sessionId: "s1" });
    const foreign = {
      invocation: {
        tokens: { total: 7 },
        modelCalls: 1,
        toolCalls: 0,
        durationMs: 3,
        models: { other: { tokens: { total: 7 }, modelCalls: 1 } },
      },
      session: { tokens: { total: 1e9 }, modelCalls: 1e6, toolCalls: 0, durationMs: 0, models: {} },
    };
    let imported = 0;
    for (const customMetadata of [
      { [USAGE_METADATA_KEY]: foreign },
      { [USAGE_METADATA_KEY]: { invocation: { models: { x: { tokens: { total: -1 } } } } } },
      {},
    ]) {
      await runner.sessionService.appendEvent({
        session: session!,
        event: createEvent({
          invocationId: `imported-${++imported}`,
          author: "root",
          customMetadata,
          usageMetadata: usage(9, 1),
          content: { role: "model", parts: [{ text: "imported" }] },
        }),
      });
    }
    await turn(runner, "after the import");
    const last = usageOf((await storedEvents(runner)).at(-1))!;
    expect(last.session.modelCalls).toBeLessThan(1e6); // the foreign session part is not trusted

    const stored = await storedEvents(runner);
    await runner.rewind({ userId: "u", sessionId: "s1", beforeInvocationId: stored[40]!.invocationId });
    for (let i = 0; i < 5; i++) await turn(runner, `after rewind ${i}`);

    const fork = await runner.fork({ userId: "u", sessionId: "s1", eventId: stored[100]!.id, newSessionId: "s2" });
    expect(fork.id).toBe("s2");
    for (let i = 0; i < 5; i++) {
      await turn(runner, `on the fork ${i}`, "s2");
      await turn(runner, `on the source ${i}`, "s1");
    }
    await runner.close();
  });

  it("compacted sessions (the summarizer's own usage counted)", async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel();
    for (let i = 0; i < 40; i++) model.push(text(`a${i}`, usage(50 + i, 5)));
    const summarizerModel = new ScriptedModel();
    for (let i = 0; i < 40; i++) summarizerModel.push(text(`S${i}`, usage(500, 50)));
    const app = new App({
      name: "usage_app",
      rootAgent: new LlmAgent({ name: "root", model }),
      eventsCompactionConfig: {
        compactionInterval: 3,
        eventRetentionSize: 2,
        summarizer: new LlmEventSummarizer({ model: summarizerModel }),
      },
    });
    const runner = makeRunner({ app, clock });
    await newSession(runner);
    for (let i = 0; i < 20; i++) await turn(runner, `q${i}`);
    expect((await storedEvents(runner)).filter((e) => e.actions.compaction).length).toBeGreaterThan(3);
    await runner.close();
  });
});
