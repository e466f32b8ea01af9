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
    return {
      get: () => {
        const memo = this.entries.get(key);
        if (memo) {
          // Most recently used last.
          this.entries.delete(key);
          this.entries.set(key, memo);
        }
        return memo;
      },
      set: (memo) => {
        this.entries.delete(key);
        this.entries.set(key, memo);
        this.held += memo.contents.length - (this.counted.get(key) ?? 0);
        this.counted.set(key, memo.contents.length);
        this.evict();
      },
    };
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
