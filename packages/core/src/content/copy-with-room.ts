/** Free slots `copyWithRoom` leaves at the end of its copy (a run appends a handful of events). */
const ROOM: readonly undefined[] = Object.freeze(new Array<undefined>(32).fill(undefined));

/**
 * A shallow copy of `items` that has room for a few more at the end. A copy made by `slice()` is
 * exactly full, so the caller's first `push` (a run appending its events to the session it
 * loaded) reallocates it: for a long history (over 16k items, V8's large-object size) that is a
 * second large allocation, and large allocations cost page mappings, on every read. V8 keeps the
 * capacity when the length is cut back by this little, so the pushes land in place.
 */
export function copyWithRoom<T>(items: readonly T[]): T[] {
  const copy = (items as T[]).concat(ROOM as T[]);
  copy.length = items.length;
  return copy;
}
