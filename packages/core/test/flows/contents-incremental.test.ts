// The incremental request builder must give exactly what a full build gives, on any history.
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { describe, expect, it } from "@jest/globals";
import { createEvent, type Content, type Event, type Part } from "../../src/index.js";
import { ContentsCache, getContents, type ContentsMemo } from "../../src/internal.js";
import { countingReads, summaryEvent } from "../compaction-fixtures.js";

/** Numbers in [0, 1) from a seed (a failure names its seed and replays exactly). */
function random(seed: number): () => number {
  const rng = new SeededRandom(seed);
  return () => rng.next();
}

const BRANCHES = [undefined, "root", "root.a", "root.b"];

/** A model's call to a long-running tool (answered later, or never). */
function longRunningCall(id: string, init: { invocationId: string; author: string; branch: string | undefined }) {
  return {
    ...init,
    content: { role: "model", parts: [{ functionCall: { id, name: "job", args: {} } }] },
    longRunningToolIds: [id],
  };
}
const AGENTS = ["root", "a", "b"];

/** A history with every shape the builder handles: tools, long-running calls answered late or
 * never, interrupted calls, other agents, branches, internal requests, compactions, rewinds,
 * live transcriptions, empty events. */
function history(seed: number, length: number): Event[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const events: Event[] = [];
  const pendingLongRunning: { id: string; name: string; author: string; branch: string | undefined }[] = [];
  let time = 1_000;
  let call = 0;
  let invocation = 0;
  const invocationIds: string[] = [];
  const push = (init: Parameters<typeof createEvent>[0]) => {
    time += 1;
    events.push(createEvent({ timestamp: time, ...init }));
  };
  while (events.length < length) {
    invocation += 1;
    const inv = `e-${invocation}`;
    invocationIds.push(inv);
    const author = pick(AGENTS);
    const branch = pick(BRANCHES);
    const roll = r();
    if (roll < 0.3) {
      push({
        invocationId: inv,
        author: "user",
        content: { role: "user", parts: [{ text: `question ${invocation}` }] },
      });
      push({
        invocationId: inv,
        author,
        branch,
        content: { role: "model", parts: [{ text: `answer ${invocation}` }] },
      });
    } else if (roll < 0.55) {
      // Parallel calls, answered in one event (or left unanswered: an interrupted run).
      const ids = Array.from({ length: 1 + Math.floor(r() * 3) }, () => `c${++call}`);
      push({ invocationId: inv, author: "user", content: { role: "user", parts: [{ text: "use tools" }] } });
      push({
        invocationId: inv,
        author,
        branch,
        content: { role: "model", parts: ids.map((id) => ({ functionCall: { id, name: "tool", args: { id } } })) },
      });
      if (r() < 0.85) {
        const parts: Part[] = ids.map((id) => ({ functionResponse: { id, name: "tool", response: { ok: id } } }));
        push({ invocationId: inv, author, branch, content: { role: "user", parts } });
        push({ invocationId: inv, author, branch, content: { role: "model", parts: [{ text: "done" }] } });
      }
    } else if (roll < 0.65) {
      const id = `lr${++call}`;
      push(longRunningCall(id, { invocationId: inv, author, branch }));
      pendingLongRunning.push({ id, name: "job", author, branch });
    } else if (roll < 0.72 && pendingLongRunning.length > 0) {
      const answered = pendingLongRunning.splice(Math.floor(r() * pendingLongRunning.length), 1)[0]!;
      push({
        invocationId: inv,
        author: "user",
        content: {
          role: "user",
          parts: [{ functionResponse: { id: answered.id, name: answered.name, response: { done: true } } }],
        },
      });
    } else if (roll < 0.77) {
      push({
        invocationId: inv,
        author,
        branch,
        content: {
          role: "user",
          parts: [{ functionCall: { id: `adk-${++call}`, name: "adk_request_confirmation", args: {} } }],
        },
      });
    } else if (roll < 0.82) {
      push({ invocationId: inv, author, branch, inputTranscription: { text: "live words " } });
      push({ invocationId: inv, author, branch, outputTranscription: { text: "live answer" } });
    } else if (roll < 0.87 && events.length > 4) {
      const start = events[Math.floor(r() * (events.length - 2))]!.timestamp;
      const end = events[events.length - 1]!.timestamp;
      push({
        invocationId: inv,
        author: "user",
        actions: {
          compaction: {
            startTimestamp: start,
            endTimestamp: end,
            compactedContent: { role: "model", parts: [{ text: `summary ${inv}` }] },
          },
        },
      });
    } else if (roll < 0.9 && invocationIds.length > 3) {
      push({
        invocationId: inv,
        author: "user",
        actions: { rewindBeforeInvocationId: pick(invocationIds.slice(0, -1)) },
      });
    } else if (roll < 0.93) {
      push({ invocationId: inv, author, branch, content: { role: "model", parts: [{ text: "" }] } });
    } else {
      push({
        invocationId: inv,
        author: pick(["other_agent", author]),
        branch,
        content: { role: "model", parts: [{ text: "aside", thought: r() < 0.3 }] },
      });
    }
  }
  return events;
}

const json = (contents: Content[]) => JSON.stringify(contents);

describe("incremental contents equal a full build", () => {
  it.each(Array.from({ length: 16 }, (_, i) => 1000 + i))(
    "seed %i, every branch and agent, growing step by step",
    (seed) => {
      const events = history(seed, 160);
      const r = random(seed * 7);
      for (const branch of BRANCHES) {
        for (const agent of AGENTS) {
          const cache = new ContentsCache();
          const slot = cache.slot("s");
          let k = 0;
          let previous = 0;
          while (k < events.length) {
            previous = k;
            k = Math.min(events.length, k + 1 + Math.floor(r() * 12));
            const prefix = events.slice(0, k);
            const incremental = getContents(branch, prefix, agent, slot);
            const full = getContents(branch, prefix, agent);
            if (json(incremental) !== json(full)) {
              const i = incremental.findIndex((c, j) => JSON.stringify(c) !== JSON.stringify(full[j]));
              const around = (xs: Content[]) => xs.slice(Math.max(0, i - 2), i + 2).map((c) => JSON.stringify(c));
              const describe = (e: Event) =>
                JSON.stringify({
                  a: e.author,
                  b: e.branch,
                  c: e.content,
                  l: e.longRunningToolIds,
                  x: e.actions.compaction ? "compaction" : e.actions.rewindBeforeInvocationId,
                  t: e.inputTranscription ?? e.outputTranscription,
                });
              throw new Error(
                `seed ${seed}, branch ${branch}, agent ${agent}, ${k} events: incremental differs from full at ` +
                  `content ${i}\n` +
                  `incremental (${incremental.length}):\n  ${around(incremental).join("\n  ")}\nfull ` +
                  `(${full.length}):\n  ${around(full).join("\n  ")}\n` +
                  `new events since the last build (${previous}..${k}):\n ` +
                  ` ${prefix.slice(previous).map(describe).join("\n  ")}`,
              );
            }
          }
        }
      }
    },
  );

  it("extends in place on a plain conversation (no rebuild) and rebuilds after a rewind", () => {
    const events: Event[] = [];
    const cache = new ContentsCache();
    const slot = cache.slot("s");
    let memos: ContentsMemo[] = [];
    const capture = {
      get: () => slot.get(),
      set: (m: ContentsMemo) => {
        memos.push(m);
        slot.set(m);
      },
    };
    for (let i = 0; i < 50; i++) {
      events.push(
        createEvent({ invocationId: `e-${i}`, author: "user", content: { role: "user", parts: [{ text: `q${i}` }] } }),
      );
      events.push(
        createEvent({
          invocationId: `e-${i}`,
          author: "a",
          content: { role: "model", parts: [{ functionCall: { id: `c${i}`, name: "t", args: {} } }] },
        }),
      );
      events.push(
        createEvent({
          invocationId: `e-${i}`,
          author: "a",
          content: { role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "t", response: {} } }] },
        }),
      );
      events.push(
        createEvent({ invocationId: `e-${i}`, author: "a", content: { role: "model", parts: [{ text: `a${i}` }] } }),
      );
      getContents(undefined, events, "a", capture);
    }
    // One array from the first build on: every later call only appended to it.
    expect(new Set(memos.map((m) => m.contents)).size).toBe(1);
    expect(memos.at(-1)!.contents).toHaveLength(200);
    memos = [];
    events.push(createEvent({ invocationId: "e-rw", author: "user", actions: { rewindBeforeInvocationId: "e-40" } }));
    const rewound = getContents(undefined, events, "a", capture);
    expect(rewound).toHaveLength(160);
    expect(memos[0]!.contents).not.toBe(cache.slot("other").get()?.contents);
  });

  it("shares frozen contents between requests and gives each request its own array", () => {
    const events = [
      createEvent({ author: "user", content: { role: "user", parts: [{ text: "hi" }] } }),
      createEvent({ author: "a", content: { role: "model", parts: [{ text: "hello" }] } }),
    ];
    const slot = new ContentsCache().slot("s");
    const first = getContents(undefined, events, "a", slot);
    const second = getContents(undefined, events, "a", slot);
    expect(first).not.toBe(second);
    expect(first[0]).toBe(second[0]);
    expect(Object.isFrozen(first[0])).toBe(true);
    expect(() => {
      (first[0]!.parts as Part[]).push({ text: "edit" });
    }).toThrow(TypeError);
    first.push({ role: "user", parts: [{ text: "added by a callback" }] });
    expect(getContents(undefined, events, "a", slot)).toHaveLength(2);
    expect(events[0]!.content!.parts).toHaveLength(1);
  });

  it("the cache is bounded by entries and by contents held", () => {
    const cache = new ContentsCache({ maxEntries: 3, maxContents: 10 });
    const events = Array.from({ length: 4 }, (_, i) =>
      createEvent({ author: "user", content: { role: "user", parts: [{ text: `${i}` }] } }),
    );
    for (let i = 0; i < 5; i++) getContents(undefined, events, "a", cache.slot(`s${i}`));
    expect(cache.size).toBeLessThanOrEqual(2);
    expect(cache.contentsHeld).toBeLessThanOrEqual(10);
    expect(cache.slot("s4").get()).toBeDefined();
    expect(cache.slot("s0").get()).toBeUndefined();
  });
});

/**
 * A compacted conversation without rewinds: turns with tools, long-running calls answered later,
 * other agents and branches, and compactions (sliding windows, folded tails, open starts), with
 * clocks that sometimes lag (an event later in the history with an earlier timestamp).
 */
function compactedHistory(seed: number, length: number): Event[] {
  const r = random(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]!;
  const events: Event[] = [];
  const pending: string[] = [];
  let time = 1_000;
  let call = 0;
  let invocation = 0;
  let lastEnd = 1_000;
  const push = (init: Parameters<typeof createEvent>[0]) => {
    time += r() < 0.1 ? -2 : 1;
    events.push(createEvent({ timestamp: time, ...init }));
  };
  while (events.length < length) {
    const inv = `e-${++invocation}`;
    const author = pick(AGENTS);
    const branch = pick(BRANCHES);
    const roll = r();
    if (roll < 0.45) {
      push({ invocationId: inv, author: "user", content: { role: "user", parts: [{ text: `q${invocation}` }] } });
      const id = `c${++call}`;
      push({
        invocationId: inv,
        author,
        branch,
        content: { role: "model", parts: [{ functionCall: { id, name: "tool", args: {} } }] },
      });
      push({
        invocationId: inv,
        author,
        branch,
        content: { role: "user", parts: [{ functionResponse: { id, name: "tool", response: { ok: true } } }] },
      });
      push({ invocationId: inv, author, branch, content: { role: "model", parts: [{ text: `a${invocation}` }] } });
    } else if (roll < 0.55) {
      const id = `lr${++call}`;
      push(longRunningCall(id, { invocationId: inv, author, branch }));
      pending.push(id);
    } else if (roll < 0.62 && pending.length > 0) {
      const id = pending.splice(Math.floor(r() * pending.length), 1)[0]!;
      push({
        invocationId: inv,
        author: "user",
        content: { role: "user", parts: [{ functionResponse: { id, name: "job", response: { done: true } } }] },
      });
    } else if (roll < 0.8) {
      push({ invocationId: inv, author, branch, content: { role: "model", parts: [{ text: `aside ${invocation}` }] } });
    } else {
      // Sliding window from the last summary's end (sometimes one earlier: overlap), a tail fold
      // from the start, or an open start; now and then a range that reaches past the present.
      const shape = r();
      const start = shape < 0.6 ? lastEnd - (r() < 0.5 ? 0 : 3) : shape < 0.85 ? 1_000 : undefined;
      const end = time + (r() < 0.1 ? 5 : 0);
      lastEnd = end;
      time += r() < 0.1 ? -2 : 1;
      events.push(
        summaryEvent({
          invocationId: inv,
          timestamp: time,
          startTimestamp: start,
          endTimestamp: end,
          text: `summary ${inv}`,
          branch: r() < 0.2 ? pick(BRANCHES) : undefined,
        }),
      );
    }
  }
  return events;
}

describe("a compacted history is rebuilt from its compacted form", () => {
  it.each(Array.from({ length: 12 }, (_, i) => 2000 + i))(
    "seed %i: incremental equals a full build at every step, every branch and agent",
    (seed) => {
      const events = compactedHistory(seed, 300);
      const r = random(seed * 11);
      for (const branch of BRANCHES) {
        for (const agent of AGENTS) {
          const slot = new ContentsCache().slot("s");
          let k = 0;
          while (k < events.length) {
            k = Math.min(events.length, k + 1 + Math.floor(r() * 8));
            const prefix = events.slice(0, k);
            const incremental = getContents(branch, prefix, agent, slot);
            expect({ seed, branch, agent, k, contents: json(incremental) }).toEqual({
              seed,
              branch,
              agent,
              k,
              contents: json(getContents(branch, prefix, agent)),
            });
          }
        }
      }
    },
  );

  it("a new summary costs the events since the last request, not the whole history", () => {
    const events: Event[] = [];
    const slot = new ContentsCache().slot("s");
    let time = 0;
    const turn = (i: number) => {
      events.push(
        createEvent({
          timestamp: ++time,
          invocationId: `e-${i}`,
          author: "user",
          content: { role: "user", parts: [{ text: `q${i}` }] },
        }),
      );
      events.push(
        createEvent({
          timestamp: ++time,
          invocationId: `e-${i}`,
          author: "a",
          content: { role: "model", parts: [{ text: `a${i}` }] },
        }),
      );
    };
    const summarize = (i: number, start: number) => {
      time++;
      events.push(
        summaryEvent({
          invocationId: `c-${i}`,
          timestamp: time,
          startTimestamp: start,
          endTimestamp: time - 1,
          text: `summary ${i}`,
        }),
      );
    };
    let windowStart = 1;
    for (let i = 0; i < 2_000; i++) {
      turn(i);
      getContents(undefined, events, "a", slot);
      if (i % 10 === 9) {
        summarize(i, windowStart);
        windowStart = time + 1;
        if (i < 1_990) getContents(undefined, events, "a", slot);
      }
    }
    // The last summary, read through a history that counts which of its events are read.
    const counted = countingReads(events);
    const contents = getContents(undefined, counted.history, "a", slot);
    expect(events.length).toBeGreaterThan(4_000);
    expect(counted.reads()).toBeLessThan(100);
    // 200 summaries, each taking the place of its ten turns.
    expect(contents).toHaveLength(200);
    expect(contents.at(-1)).toEqual({ role: "model", parts: [{ text: "summary 1999" }] });
    expect(json(contents)).toBe(json(getContents(undefined, events, "a")));
  });

  it("keeps an event appended after a summary whose clock lags behind its range", () => {
    const at = (timestamp: number, text: string) =>
      createEvent({ timestamp, invocationId: text, author: "user", content: { role: "user", parts: [{ text }] } });
    const events = Array.from({ length: 20 }, (_, i) => at(100 + i, `q${i}`));
    events.push(
      summaryEvent({ invocationId: "c", timestamp: 119, startTimestamp: 100, endTimestamp: 119, text: "summary" }),
    );
    const slot = new ContentsCache().slot("s");
    getContents(undefined, events, "a", slot);
    // Another replica's clock: earlier than the summary's range end, yet appended after it.
    events.push(at(115, "after the summary"));
    const expected = json([
      { role: "model", parts: [{ text: "summary" }] },
      { role: "user", parts: [{ text: "after the summary" }] },
    ]);
    expect(json(getContents(undefined, events, "a", slot))).toBe(expected);
    expect(json(getContents(undefined, events, "a"))).toBe(expected);
  });
});
