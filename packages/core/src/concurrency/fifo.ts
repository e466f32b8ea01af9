/**
 * A first-in, first-out list whose `shift` costs the same at any length. `Array.prototype.shift`
 * moves every remaining item once an array is large (past about 16,000 items V8 cannot trim its
 * start in place), so a workflow that fanned out to 64,000 branches spent most of its run shifting
 * its queue of triggers. Taken items are cleared at once (nothing kept alive), and the array is
 * compacted when the taken part is half of it, so it holds at most twice what is queued. The
 * runtime's queues whose length a caller decides use it: workflow triggers, settled node results
 * and node event channels, `KeyedQueue` lines, live request buffers.
 */
export class Fifo<T> {
  private items: (T | undefined)[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  /** The oldest item, removed; `undefined` when empty. */
  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head] as T;
    this.items[this.head++] = undefined;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** The oldest item that `matches`, removed (a scan: for the rare lookup, not the queue's use). */
  takeFirst(matches: (item: T) => boolean): T | undefined {
    for (let i = this.head; i < this.items.length; i++) {
      const item = this.items[i] as T;
      if (!matches(item)) continue;
      if (i === this.head) return this.shift();
      this.items.splice(i, 1);
      return item;
    }
    return undefined;
  }
}
