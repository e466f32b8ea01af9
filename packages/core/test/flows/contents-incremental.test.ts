// The incremental request builder must give exactly what a full build gives, on any history.
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { describe, expect, it } from "@jest/globals";
import { createEvent, type Content, type Event, type Part } from "../../src/index.js";
import { ContentsCache, getContents, type ContentsMemo } from "../../src/internal.js";

/** Numbers in [0, 1) from a seed (a failure names its seed and replays exactly). */
function random(seed: number): () => number {
  const rng = new SeededRandom(seed);
  return () => rng.next();
}

const BRANCHES = [undefined, "root", "root.a", "root.b"];
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
      push({
        invocationId: inv,
        author,
        branch,
        content: { role: "model", parts: [{ functionCall: { id, name: "job", args: {} } }] },
        longRunningToolIds: [id],
      });
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
