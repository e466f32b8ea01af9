/**
 * Free slots `copyWithRoom` leaves at the end of its copy (a run appends a handful of events).
 * Not frozen, though it is never written: `concat` takes a slow path (5-10x) for frozen arguments.
 * Module-private, so nothing can write to it.
 */
const ROOM: undefined[] = new Array<undefined>(32).fill(undefined);

/** Below this length a plain `slice()` is cheaper, reallocation on the first push included. */
const SLICE_BELOW = 256;

/**
 * A shallow copy of `items` that has room for a few more at the end. A copy made by `slice()` is
 * exactly full, so the caller's first `push` (a run appending its events to the session it
 * loaded) reallocates it: for a long history (over 16k items, V8's large-object size) that is a
 * second large allocation, and large allocations cost page mappings, on every read. V8 keeps the
 * capacity when the length is cut back by this little, so the pushes land in place. Short lists
 * are sliced: copying a few pointers again on the first push costs less than `concat`.
 */
export function copyWithRoom<T>(items: readonly T[]): T[] {
  if (items.length < SLICE_BELOW) return items.slice();
  const copy = (items as T[]).concat(ROOM as T[]);
  copy.length = items.length;
  return copy;
}
