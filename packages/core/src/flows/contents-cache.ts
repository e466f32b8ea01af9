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
  private readonly entries = new Map<string, ContentsMemo>();
  /** Contents counted per key when its memo was last stored (memo arrays grow in place). */
  private readonly counted = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly maxContents: number;
  private held = 0;

  constructor(options: ContentsCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 512;
    this.maxContents = options.maxContents ?? 500_000;
  }

  /** Memos currently kept. */
  get size(): number {
    return this.entries.size;
  }

  /** Contents held across the memos. */
  get contentsHeld(): number {
    return this.held;
  }

  slot(key: string): ContentsMemoSlot {
    return new CacheSlot(this, key);
  }

  /** The memo under `key`, now the most recently used. */
  get(key: string): ContentsMemo | undefined {
    const memo = this.entries.get(key);
    if (memo) {
      this.entries.delete(key);
      this.entries.set(key, memo);
    }
    return memo;
  }

  /** Stores the memo under `key` (most recently used), then evicts over the bounds. */
  set(key: string, memo: ContentsMemo): void {
    this.entries.delete(key);
    this.entries.set(key, memo);
    this.held += memo.contents.length - (this.counted.get(key) ?? 0);
    this.counted.set(key, memo.contents.length);
    this.evict();
  }

  clear(): void {
    this.entries.clear();
    this.counted.clear();
    this.held = 0;
  }

  private evict(): void {
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.held <= this.maxContents) return;
      this.entries.delete(key);
      this.held -= this.counted.get(key) ?? 0;
      this.counted.delete(key);
    }
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
