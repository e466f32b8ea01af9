import type { Content } from "@agentkit/core";
import { BoundedLru } from "@agentkit/core/internal";
import { toJsonString } from "./trace-json.js";

/**
 * The contents of one recorded model request. A request handed the session's append-only
 * history is the first `length` contents of that array (`source`), kept by reference. Any other
 * is a node of a chain: the first `baseLength` contents of `base` followed by `tail`, so
 * consecutive requests of one conversation share their prefix and a node holds only what is
 * new. Every content is the same frozen snapshot the request builder shares, never a copy.
 * A `source` node refers to no earlier node: once the traces holding a request are evicted,
 * nothing of it is left (a chain keeps every node below it alive).
 */
export interface ContentsNode {
  /** The append-only history whose first `length` contents these are (`base` and `tail` then unused). */
  readonly source: readonly Content[] | undefined;
  readonly base: ContentsNode | undefined;
  readonly baseLength: number;
  readonly tail: readonly Content[];
  readonly length: number;
  /** The length of the contents' JSON text (`toJsonString` of the array), known without writing it. */
  readonly jsonLength: number;
  /** What this request adds to its key's previous one, in JSON characters (for byte budgets). */
  readonly addedJsonLength: number;
}

const NO_CONTENTS: readonly Content[] = Object.freeze([]);

/**
 * The first `count` contents of a node: a reader that needs only those (the head of a request's
 * JSON) follows the chain down to where they were recorded, without building the history.
 */
export function firstContents(node: ContentsNode, count: number): Content[] {
  let n = node;
  const wanted = Math.min(count, n.length);
  // The first `wanted` contents are the base's while the base holds them all.
  while (n.base && wanted <= n.baseLength) n = n.base;
  if (n.source) return n.source.slice(0, wanted);
  const out = n.base ? firstContents(n.base, n.baseLength) : [];
  for (let i = 0; out.length < wanted; i++) out.push(n.tail[i]!);
  return out;
}

/** The full contents of a node (walks the chain; only when a trace is read). */
export function materializeContents(node: ContentsNode): Content[] {
  const chain: ContentsNode[] = [];
  for (let n: ContentsNode | undefined = node; n; n = n.base) chain.push(n);
  let contents: Content[] = [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const n = chain[i]!;
    // A source node has no base: it is where the chain starts.
    if (n.source) {
      contents = n.source.slice(0, n.length);
      continue;
    }
    contents = contents.length === n.baseLength ? contents : contents.slice(0, n.baseLength);
    for (const c of n.tail) contents.push(c);
  }
  return contents;
}

/**
 * Records request contents per conversation key (session, branch, agent) as nodes. The latest
 * request of each key is remembered (bounded, least recently used out) to find the prefix the
 * next one shares, by identity of its content objects: O(new contents) of memory per request,
 * never a serialization. A request handed the session's shared history array (`appendOnly`: the
 * flow lent it, see `isLentHistory`) is kept by reference with its length: when the next request
 * gets the same array, extended, the shared prefix is known without comparing or copying
 * anything, so a request costs what is new in it. Other arrays are compared pointer by pointer
 * and chained onto the previous node, their new contents copied, since their owner may still
 * edit them.
 */
export class RequestContentsLog {
  private readonly latest: BoundedLru<Latest>;

  /**
   * `maxContents`: the contents the remembered requests may hold together (as the runner's own
   * contents memos are bounded): each keeps its conversation's whole history alive, which with a
   * database session store nothing else in the process may still hold. A key whose request was
   * let go records its next request whole (its node shares nothing).
   */
  constructor(maxKeys = 1024, maxContents = 500_000) {
    this.latest = new BoundedLru({ maxEntries: maxKeys, maxWeight: maxContents });
  }

  /**
   * The node of `contents`, sharing the previous request's of `key` as far as they agree.
   * `appendOnly`: nothing will change `contents[0..length)` (a lent history array).
   */
  record(key: string, contents: readonly Content[], appendOnly = false): ContentsNode {
    const previous = this.latest.peek(key);
    let shared = 0;
    if (previous) {
      const limit = Math.min(previous.length, contents.length);
      // The same append-only array again: its first `previous.length` items are the ones recorded.
      if (appendOnly && previous.appendOnly && contents === previous.contents) shared = limit;
      else while (shared < limit && previous.contents[shared] === contents[shared]) shared++;
    }
    const base = previous && shared > 0 ? previous.node : undefined;
    const tail = base ? contents.slice(shared) : contents.slice();
    const jsonLength = joinedJsonLength(base ? prefixJsonLength(base, shared) : 2, jsonText(tail).length);
    const addedJsonLength = Math.max(0, jsonLength - (base?.jsonLength ?? 0));
    const node: ContentsNode = appendOnly
      ? {
          source: contents,
          base: undefined,
          baseLength: 0,
          tail: NO_CONTENTS,
          length: contents.length,
          jsonLength,
          addedJsonLength,
        }
      : {
          source: undefined,
          base,
          baseLength: base ? shared : 0,
          tail,
          length: contents.length,
          jsonLength,
          addedJsonLength,
        };
    this.latest.set(
      key,
      { contents: appendOnly ? contents : contents.slice(), length: contents.length, appendOnly, node },
      Math.max(1, contents.length),
    );
    return node;
  }

  clear(): void {
    this.latest.clear();
  }
}

/** A key's latest request: its contents (`length` of them count; an append-only array may have grown since). */
interface Latest {
  readonly contents: readonly Content[];
  readonly length: number;
  readonly appendOnly: boolean;
  readonly node: ContentsNode;
}

/** JSON text of contents as the request attribute writes them (each one whole). */
function jsonText(contents: readonly Content[]): string {
  return toJsonString(contents, Number.POSITIVE_INFINITY);
}

/** The JSON length of the first `count` contents of `node`: its own when all, else written out (rare: a branch or rewind). */
function prefixJsonLength(node: ContentsNode, count: number): number {
  return count === node.length ? node.jsonLength : jsonText(materializeContents(node).slice(0, count)).length;
}

/** The length of `[a…]` and `[b…]` joined into one array's JSON (`[]` is 2 characters). */
function joinedJsonLength(first: number, second: number): number {
  if (first === 2) return second;
  if (second === 2) return first;
  return first + second - 1;
}
