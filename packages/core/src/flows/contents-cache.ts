import { BoundedLru } from "../caching/bounded-lru.js";
import type { ContentsMemo, ContentsMemoSlot } from "./contents.js";

export interface ContentsCacheOptions {
  /** Memos kept (one per session, branch and agent); the least recently used go first. Default 512. */
  maxEntries?: number;
  /** Contents kept across all memos (each a shared, frozen snapshot). Default 500,000. */
  maxContents?: number;
}

/**
 * The memos of `getContents`, one per (app, user, session, branch, agent), kept by the runner so
 * that building a request costs time proportional to what was appended since the last request,
 * not to the length of the session. Bounded by entries and by contents held, least recently
 * used first out; a miss only costs a full build, never a wrong result (a memo is used only if
 * the history still starts with the events it was built from).
 */
export class ContentsCache {
  // Weighed by contents (and compacted events) when stored: memo arrays grow in place, so a
  // memo counts what it held when it was last stored.
  private readonly memos: BoundedLru<ContentsMemo>;

  constructor(options: ContentsCacheOptions = {}) {
    this.memos = new BoundedLru({ maxEntries: options.maxEntries ?? 512, maxWeight: options.maxContents ?? 500_000 });
  }

  /** Memos currently kept. */
  get size(): number {
    return this.memos.size;
  }

  /** Contents held across the memos. */
  get contentsHeld(): number {
    return this.memos.weight;
  }

  slot(key: string): ContentsMemoSlot {
    return new CacheSlot(this, key);
  }

  /** The memo under `key`, now the most recently used. */
  get(key: string): ContentsMemo | undefined {
    return this.memos.get(key);
  }

  /** Stores the memo under `key` (most recently used), then evicts over the bounds. */
  set(key: string, memo: ContentsMemo): void {
    this.memos.set(key, memo, memo.contents.length + (memo.compacted?.length ?? 0));
  }

  clear(): void {
    this.memos.clear();
  }
}

/** One key's slot (a class, not closures: one is made per request). */
class CacheSlot implements ContentsMemoSlot {
  private readonly cache: ContentsCache;
  private readonly key: string;

  constructor(cache: ContentsCache, key: string) {
    this.cache = cache;
    this.key = key;
  }

  get(): ContentsMemo | undefined {
    return this.cache.get(this.key);
  }

  set(memo: ContentsMemo): void {
    this.cache.set(this.key, memo);
  }
}
