import { setOwn } from "../sessions/own-keys.js";

/**
 * A deep copy of JSON-like data (plain objects, arrays, primitives), several times faster than
 * `structuredClone` on event-shaped values (no serialization round trip); used on hot paths such
 * as storing events. Keys such as `__proto__` stay ordinary keys. Anything that is not a plain
 * object or array (a Date, a typed array, a class instance) is copied with `structuredClone`.
 */
export function deepCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return structuredClone(value);
  const out: Record<string, unknown> = {};
  // `for…in` + own check: the order of `Object.keys` without allocating its array.
  for (const key in value) {
    if (Object.hasOwn(value, key)) setOwn(out, key, deepCopy((value as Record<string, unknown>)[key]));
  }
  return out as T;
}

/**
 * The frozen empty object and array that frozen snapshots hold wherever their source had an
 * empty one (events carry four action maps, mostly empty). V8 gives every `{}` room for four
 * properties (56 bytes), and a store keeps its snapshots for the session's lifetime.
 */
const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});
const EMPTY_ARRAY: readonly never[] = Object.freeze([]);

/**
 * `deepFreeze(deepCopy(value))` in one pass: each object of the copy is frozen as it is made,
 * and every empty plain object or array is the one shared frozen instance (frozen values cannot
 * tell one empty object from another).
 */
export function frozenCopy<T>(value: T): T {
  if (typeof value === "string") return flatString(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return (value.length === 0 ? EMPTY_ARRAY : Object.freeze(value.map(frozenCopy))) as T;
  const proto = Object.getPrototypeOf(value) as object | null;
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return deepFreeze(structuredClone(value));
  const out: Record<string, unknown> = {};
  let empty = true;
  for (const key in value) {
    if (Object.hasOwn(value, key)) {
      setOwn(out, key, frozenCopy((value as Record<string, unknown>)[key]));
      empty = false;
    }
  }
  return (empty && proto !== null ? EMPTY_OBJECT : Object.freeze(out)) as T;
}

/**
 * Freezes a value and everything it holds (objects and arrays), in place; returns it. Empty
 * plain objects and arrays it holds (not `value` itself) are replaced by the shared frozen ones
 * of `frozenCopy`, so only a value the caller owns may be given (a parsed copy, a clone).
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    for (const key of keys) {
      const shared = sharedEmpty(record[key]);
      if (shared) setOwn(record, key, shared);
    }
    // Frozen before its children: a cycle ends at the frozen check.
    Object.freeze(value);
    for (const key of keys) deepFreeze(record[key]);
  }
  return value;
}

/** The shared frozen instance for an empty plain object or array, else undefined. */
function sharedEmpty(value: unknown): object | undefined {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return undefined;
  if (Array.isArray(value)) return value.length === 0 ? EMPTY_ARRAY : undefined;
  if (Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  for (const key in value) if (Object.hasOwn(value, key)) return undefined;
  return EMPTY_OBJECT;
}

/**
 * The string, flattened in place. V8 keeps a concatenated string as a tree of its pieces (a
 * `randomUUID()` id is one: a dozen nodes of 32 bytes over its 36 characters); converting it to
 * a number flattens it (the tree's root then points at one flat copy, which the next collection
 * puts in its place), so a snapshot kept for the session's lifetime holds flat strings.
 */
function flatString(value: string): string {
  void Number(value);
  return value;
}
