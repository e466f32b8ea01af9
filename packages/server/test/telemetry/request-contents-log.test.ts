// The request log records each model request's contents as a node sharing the previous
// request's prefix: by reference for the session's append-only history array, by pointer
// comparison against a kept copy for any other array (whose owner may still edit it).
import { describe, expect, it } from "@jest/globals";
import type { Content } from "@agentkit/core";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import {
  type ContentsNode,
  firstContents,
  materializeContents,
  RequestContentsLog,
} from "../../src/telemetry/request-contents-log.js";
import { toJsonString } from "../../src/telemetry/trace-json.js";

const content = (text: string): Content => Object.freeze({ role: "user", parts: Object.freeze([{ text }]) }) as Content;

describe("RequestContentsLog", () => {
  it("keeps an append-only history array growing in place by reference, each node with its request's length", () => {
    const log = new RequestContentsLog();
    const history = [content("a"), content("b")];
    const first = log.record("k", history, true);
    const snapshots = [history.slice()];
    const nodes = [first];
    for (let turn = 0; turn < 5; turn++) {
      history.push(content(`q${turn}`), content(`a${turn}`));
      snapshots.push(history.slice());
      nodes.push(log.record("k", history, true));
    }
    for (const [i, node] of nodes.entries()) {
      // No copy and no link to the node before: an evicted request's node is nothing but garbage.
      expect(node.source).toBe(history);
      expect(node.base).toBeUndefined();
      expect(node.length).toBe(2 + 2 * i);
      expect(node.jsonLength).toBe(toJsonString(snapshots[i]!, Number.POSITIVE_INFINITY).length);
    }
    // What each request adds to the one before: its two new contents (and the comma before them).
    const added = toJsonString([content("q0"), content("a0")], Number.POSITIVE_INFINITY).length - 1;
    expect(nodes[1]!.addedJsonLength).toBe(added);
    expect(first.addedJsonLength).toBe(first.jsonLength);
    // Each node is the request as it was when recorded, though the array grew after it.
    expect(nodes.map(materializeContents)).toEqual(snapshots);
    expect(nodes.map((n) => firstContents(n, 3))).toEqual(snapshots.map((c) => c.slice(0, 3)));
  });

  it("remembers requests up to a total of contents, least recently used out: a forgotten key's next node shares nothing", () => {
    const log = new RequestContentsLog(1024, 15);
    const history = (key: string, n: number) => Array.from({ length: n }, (_, i) => content(`${key}${i}`));
    const a = history("a", 10);
    const b = history("b", 10);
    log.record("a", a, true);
    log.record("b", b, true);
    a.push(content("a10"));
    b.push(content("b10"));
    // a's request was let go to keep within 15 contents: its next node shares nothing, and
    // remembering it (11 contents) lets b's go in turn.
    const nextA = log.record("a", a, true);
    expect(nextA.addedJsonLength).toBe(nextA.jsonLength);
    const nextB = log.record("b", b, true);
    expect(nextB.addedJsonLength).toBe(nextB.jsonLength);
    // Within the bound, a key's requests share their prefix as before.
    b.push(content("b11"));
    const again = log.record("b", b, true);
    expect(again.addedJsonLength).toBe(toJsonString([content("b11")], Number.POSITIVE_INFINITY).length - 1);
    expect(materializeContents(again)).toEqual(b);
  });

  it("reads only the new contents of an append-only history array, however long it grows", () => {
    const log = new RequestContentsLog();
    const items: Content[] = Array.from({ length: 1000 }, (_, i) => content(`c${i}`));
    let reads = 0;
    // Counts reads of the array's items, as slicing and comparing make them.
    const history = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    log.record("k", history, true);
    for (let turn = 0; turn < 10; turn++) {
      items.push(content(`q${turn}`), content(`a${turn}`));
      reads = 0;
      const node = log.record("k", history, true);
      expect(reads).toBe(2);
      expect(node.length).toBe(items.length);
      expect(materializeContents(node).slice(-2)).toEqual(items.slice(-2));
    }
    // The same array without the promise is compared and copied in full.
    reads = 0;
    log.record("k", history);
    expect(reads).toBeGreaterThanOrEqual(2 * items.length);
  });

  it("compares an array it does not own against its own copy, so the owner's later edits change nothing recorded", () => {
    const log = new RequestContentsLog();
    const owned = [content("a"), content("b"), content("c")];
    const first = log.record("k", owned);
    // The owner edits its array in place after the call (a callback replaced the first content).
    owned[0] = content("edited");
    owned.push(content("d"));
    const second = log.record("k", owned);
    expect(second.baseLength).toBe(0);
    expect(materializeContents(first).map((c) => c.parts![0]!.text)).toEqual(["a", "b", "c"]);
    expect(materializeContents(second).map((c) => c.parts![0]!.text)).toEqual(["edited", "b", "c", "d"]);
  });

  it("shares the agreeing prefix when the history array is rebuilt, or an append-only array follows a copy", () => {
    const log = new RequestContentsLog();
    const [a, b, c, d] = ["a", "b", "c", "d"].map(content) as [Content, Content, Content, Content];
    const history = [a, b, c];
    log.record("k", history, true);
    // A rebuilt history (a new array) that agrees on its first two contents.
    const rebuilt = [a, b, d];
    const afterRebuild = log.record("k", rebuilt, true);
    expect(afterRebuild.source).toBe(rebuilt);
    expect(materializeContents(afterRebuild)).toEqual([a, b, d]);
    // The old array grows after it was replaced: what the log shares comes from the new one.
    history.push(d);
    const copy = [a, b, d, c];
    const afterCopy = log.record("k", copy);
    expect(afterCopy.base).toBe(afterRebuild);
    expect(afterCopy.baseLength).toBe(3);
    expect(afterCopy.tail).toEqual([c]);
    expect(materializeContents(afterCopy)).toEqual([a, b, d, c]);
    expect(firstContents(afterCopy, 2)).toEqual([a, b]);
    // Back to the append-only array after a copy: compared, not assumed.
    rebuilt.push(a);
    const back = log.record("k", rebuilt, true);
    expect(back.source).toBe(rebuilt);
    expect(back.addedJsonLength).toBe(0); // [a, b, d, a] is as long as [a, b, d, c]
    expect(materializeContents(back)).toEqual([a, b, d, a]);
  });

  it("keeps keys apart and a shorter request shares only what it has", () => {
    const log = new RequestContentsLog();
    const [a, b, c] = ["a", "b", "c"].map(content) as [Content, Content, Content];
    const history = [a, b, c];
    log.record("one", history, true);
    const other = log.record("two", [a], true);
    expect(other.baseLength).toBe(0);
    const shorter = log.record("one", history.slice(0, 2));
    expect(shorter.baseLength).toBe(2);
    expect(materializeContents(shorter)).toEqual([a, b]);
  });

  it.each([1, 2, 3, 4])(
    "knows each node's first contents and their JSON length, on grown, cut and edited histories (seed %i)",
    (seed) => {
      const rng = new SeededRandom(seed);
      const log = new RequestContentsLog();
      let history: Content[] = [];
      const recorded: [ContentsNode, Content[]][] = [];
      for (let call = 0; call < 60; call++) {
        const roll = rng.int(10);
        // Grows (as a session does), goes back to a prefix (a rewind or another branch), or is rebuilt with an edit.
        if (roll < 6)
          history = [...history, ...Array.from({ length: 1 + rng.int(3) }, (_, i) => content(`c${call}-${i} "é\n`))];
        else if (roll < 8) history = history.slice(0, rng.int(history.length + 1));
        else if (history.length > 0)
          history = history.map((c, i) => (i === rng.int(history.length) ? content(`edit${call}`) : c));
        const key = rng.chance(0.8) ? "k" : "other";
        // Every array here is new and never edited, so either way of recording it is allowed.
        const node = log.record(key, history, rng.chance(0.5));
        for (const count of [0, 1, 2, 5, history.length, history.length + 3])
          expect(firstContents(node, count)).toEqual(history.slice(0, count));
        expect(materializeContents(node)).toEqual(history);
        expect(node.jsonLength).toBe(toJsonString(history, Number.POSITIVE_INFINITY).length);
        recorded.push([node, history]);
      }
      // Every node still reads as its request, after all the requests recorded since.
      for (const [node, contents] of recorded) expect(materializeContents(node)).toEqual(contents);
    },
  );
});
