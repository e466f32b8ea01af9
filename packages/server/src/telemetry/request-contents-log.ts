import type { Content } from "@agentkit/core";
import { BoundedLru } from "@agentkit/core/internal";

/**
 * The contents of one recorded model request, as a node of a chain: the first `baseLength`
 * contents of `base` followed by `tail`. Consecutive requests of one conversation share their
 * prefix, so a node holds only what is new; every content is the same frozen snapshot the
 * request builder shares, never a copy.
 */
export interface ContentsNode {
  readonly base: ContentsNode | undefined;
  readonly baseLength: number;
  readonly tail: readonly Content[];
  readonly length: number;
}

/** The full contents of a node (walks the chain; only when a trace is read). */
export function materializeContents(node: ContentsNode): Content[] {
  const chain: ContentsNode[] = [];
  for (let n: ContentsNode | undefined = node; n; n = n.base) chain.push(n);
  let contents: Content[] = [];
  for (let i = chain.length - 1; i >= 0; i--) {
    const n = chain[i]!;
    contents = contents.length === n.baseLength ? contents : contents.slice(0, n.baseLength);
    for (const c of n.tail) contents.push(c);
  }
  return contents;
}

/**
 * Records request contents per conversation key (session, branch, agent) as chain nodes. The
 * latest request of each key is remembered (bounded, least recently used out) to find the prefix
 * the next one shares, by identity of its content objects: O(new contents) of memory per request,
 * never a serialization. A request handed the session's shared history array (`appendOnly`: the
 * flow lent it, see `isLentHistory`) is remembered by reference: when the next request gets the
 * same array, extended, the shared prefix is known without comparing or copying anything, so a
 * request costs what is new in it. Other arrays are compared pointer by pointer and copied, since
 * their owner may still edit them.
 */
export class RequestContentsLog {
  private readonly latest: BoundedLru<Latest>;

  constructor(maxKeys = 1024) {
    this.latest = new BoundedLru({ maxEntries: maxKeys });
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
    const node: ContentsNode =
      previous && shared > 0
        ? { base: previous.node, baseLength: shared, tail: contents.slice(shared), length: contents.length }
        : { base: undefined, baseLength: 0, tail: contents.slice(), length: contents.length };
    this.latest.set(key, {
      contents: appendOnly ? contents : contents.slice(),
      length: contents.length,
      appendOnly,
      node,
    });
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
