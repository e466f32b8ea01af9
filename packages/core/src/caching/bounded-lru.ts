export interface BoundedLruOptions {
  /** Entries kept; past it the least recently used go first. */
  maxEntries: number;
  /** Total weight kept (the weights given to `set`); unbounded when omitted. */
  maxWeight?: number;
}

/**
 * The one least-recently-used policy of agentkit's in-process caches (request-contents memos,
 * parsed session events, recorded request contents): a string-keyed map bounded by entries and
 * by a total weight (contents or events held), whose oldest entries go first when either bound
 * is passed. `get` and `set` make an entry the most recent; `peek` does not. An entry heavier
 * than `maxWeight` on its own is not kept.
 */
export class BoundedLru<V> {
  // Map iteration follows insertion order, so re-inserting on use keeps the oldest first.
  private readonly values = new Map<string, V>();
  private readonly weights = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly maxWeight: number;
  private held = 0;
  /**
   * The most recently used key. Using it again changes no order, so it is not re-inserted: a
   * long conversation uses one key call after call, and a Map's delete-and-set makes V8 rebuild
   * its table, garbage that outlives young collections once the Map is old.
   */
  private newest: string | undefined;

  constructor(options: BoundedLruOptions) {
    this.maxEntries = options.maxEntries;
    this.maxWeight = options.maxWeight ?? Number.POSITIVE_INFINITY;
  }

  /** Entries kept. */
  get size(): number {
    return this.values.size;
  }

  /** Total weight of the entries kept. */
  get weight(): number {
    return this.held;
  }

  /** The value under `key`, now the most recently used. */
  get(key: string): V | undefined {
    const value = this.values.get(key);
    if (value !== undefined && key !== this.newest) {
      this.values.delete(key);
      this.values.set(key, value);
      this.newest = key;
    }
    return value;
  }

  /** The value under `key`, leaving its place in the order alone. */
  peek(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Stores `value` under `key` as the most recently used, then evicts past the bounds. */
  set(key: string, value: V, weight = 1): void {
    if (key !== this.newest) {
      this.values.delete(key);
      this.newest = key;
    }
    this.values.set(key, value);
    this.held += weight - (this.weights.get(key) ?? 0);
    this.weights.set(key, weight);
    this.evict();
  }

  /** Removes `key`; true when it was kept. */
  delete(key: string): boolean {
    if (!this.values.delete(key)) return false;
    if (key === this.newest) this.newest = undefined;
    this.held -= this.weights.get(key) ?? 0;
    this.weights.delete(key);
    return true;
  }

  clear(): void {
    this.values.clear();
    this.weights.clear();
    this.newest = undefined;
    this.held = 0;
  }

  private evict(): void {
    for (const key of this.values.keys()) {
      if (this.values.size <= this.maxEntries && this.held <= this.maxWeight) return;
      this.delete(key);
    }
  }
}
