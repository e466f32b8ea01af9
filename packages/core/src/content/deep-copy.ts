import { hasOwnKeys, setOwn } from "../sessions/own-keys.js";
import { isPlainRecord } from "./plain-record.js";
import { sizedRecord } from "./sized-record.js";
import {
  EMPTY_ARRAY,
  EMPTY_OBJECT,
  isMarkedDeepFrozen,
  isSharedEmpty,
  SnapshotSharing,
  sharedEmptyRecordOf,
} from "./snapshot-sharing.js";

/**
 * A deep copy of JSON-like data (plain objects, arrays, primitives), several times faster than
 * `structuredClone` on event-shaped values (no serialization round trip); used on hot paths such
 * as storing events. Keys such as `__proto__` stay ordinary keys. Anything that is not a plain
 * object or array (a Date, a typed array, a class instance) is copied with `structuredClone`.
 */
export function deepCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const copy = new Array(n);
    for (let i = 0; i < n; i++) {
      const item = value[i];
      copy[i] = typeof item === "object" && item !== null ? deepCopy(item) : item;
    }
    return copy as T;
  }
  if (!isPlainRecord(value)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  // `for…in` + own check: the order of `Object.keys` without allocating its array. Primitives
  // are copied in the loop: a call per value costs more than the copy itself.
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = (value as Record<string, unknown>)[key];
    setOwn(out, key, typeof child === "object" && child !== null ? deepCopy(child) : child);
  }
  return out as T;
}

/**
 * `deepFreeze(deepCopy(value))` in one pass: each object of the copy is frozen as it is made.
 * The copy shares what it can (`snapshot-sharing.ts`): every empty plain object or array is one
 * shared frozen instance, a record of nothing but empties (an unchanged event's `actions`) is
 * shared by key list, equal leaves of three or more primitives within the value are one object,
 * strings are flattened, and a record agentkit built deep-frozen (`markDeepFrozen`) is kept as
 * it is. Frozen values cannot tell a shared object from an own one.
 */
export function frozenCopy<T>(value: T): T {
  return copyFrozen(value, new SnapshotSharing());
}

function copyFrozen<T>(value: T, sharing: SnapshotSharing): T {
  if (typeof value === "string") return flatString(value) as T;
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length;
    if (n === 0) return EMPTY_ARRAY as T;
    const copy = new Array(n);
    let primitive = true;
    for (let i = 0; i < n; i++) {
      const item = value[i];
      if (typeof item === "object" && item !== null) {
        primitive = false;
        copy[i] = copyFrozen(item, sharing);
      } else copy[i] = typeof item === "string" ? flatString(item) : item;
    }
    Object.freeze(copy);
    return (primitive ? sharing.leaf(copy, n) : copy) as T;
  }
  if (!isPlainRecord(value)) return deepFreeze(structuredClone(value));
  // Frozen first: the mark is looked up only on the few frozen values a copy meets.
  if (Object.isFrozen(value) && isMarkedDeepFrozen(value)) return value;
  // One listing of the keys (V8 copies its cached key list) sizes the record and drives the copy:
  // counting with `for…in` first and copying in a second pass cost about 13% more per event.
  const keys = Object.keys(value);
  const count = keys.length;
  if (count === 0) return EMPTY_OBJECT as T;
  // A record of nothing but empties already shared (an unchanged event's `actions`): the copy
  // would be made only to be dropped for it. Looked up only when the first value is an object.
  const first = (value as Record<string, unknown>)[keys[0]!];
  if (typeof first === "object" && first !== null) {
    const shared = sharedEmptyRecordOf(value as Record<string, unknown>, keys);
    if (shared) return shared as T;
  }
  const out = sizedRecord(count);
  let allEmpty = true;
  let primitive = true;
  // Primitives are copied in the loop: a call per value costs more than the copy itself.
  for (let i = 0; i < count; i++) {
    const key = keys[i]!;
    const child = (value as Record<string, unknown>)[key];
    if (typeof child === "object" && child !== null) {
      primitive = false;
      const copy = copyFrozen(child, sharing);
      setOwn(out, key, copy);
      if (!isSharedEmpty(copy)) allEmpty = false;
    } else {
      allEmpty = false;
      setOwn(out, key, typeof child === "string" ? flatString(child) : child);
    }
  }
  Object.freeze(out);
  if (allEmpty) return sharing.emptyRecord(out, count) as T;
  return (primitive ? sharing.leaf(out, count) : out) as T;
}

/**
 * Freezes a value and everything it holds (objects and arrays), in place; returns it. What it
 * holds is shared as `frozenCopy` shares it (empty objects and arrays, records of empties, equal
 * leaves within the value): those children are replaced, not `value` itself, so only a value the
 * caller owns may be given (a parsed copy, a clone).
 */
export function deepFreeze<T>(value: T): T {
  freezeSharing(value, new SnapshotSharing());
  return value;
}

function freezeSharing(value: unknown, sharing: SnapshotSharing): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (const key of keys) {
    const shared = sharedChild(record[key], sharing);
    if (shared) setOwn(record, key, shared);
  }
  // Frozen before its children: a cycle ends at the frozen check.
  Object.freeze(value);
  for (const key of keys) freezeSharing(record[key], sharing);
}

/**
 * The shared frozen stand-in for a plain object or array that holds no nested data (empty, only
 * primitives, or only empty objects and arrays), frozen in place on the way; else undefined.
 */
function sharedChild(value: unknown, sharing: SnapshotSharing): object | undefined {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return undefined;
  const isArray = Array.isArray(value);
  if (!isArray && Object.getPrototypeOf(value) !== Object.prototype) return undefined;
  const record = value as Record<string, unknown>;
  let count = 0;
  let primitive = true;
  let allEmpty = true;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    count++;
    const child = record[key];
    if (typeof child === "object" && child !== null) {
      primitive = false;
      if (!isEmptyPlain(child)) return undefined;
    } else allEmpty = false;
  }
  if (count === 0) return isArray ? EMPTY_ARRAY : EMPTY_OBJECT;
  if (primitive) return sharing.leaf(Object.freeze(value), count);
  if (!allEmpty || isArray) return undefined;
  for (const key in record) {
    if (Object.hasOwn(record, key)) setOwn(record, key, Array.isArray(record[key]) ? EMPTY_ARRAY : EMPTY_OBJECT);
  }
  return sharing.emptyRecord(Object.freeze(value), count);
}

/** An empty plain object or array. */
function isEmptyPlain(value: object): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return Object.getPrototypeOf(value) === Object.prototype && !hasOwnKeys(value);
}

/**
 * Matches every string at its start. Testing a string against a regular expression makes V8
 * flatten it first (a match needs its characters in one piece); on a string that is flat already
 * the test costs about a third of a conversion to a number, the other operation that flattens.
 */
const ANY_START = /^/;

/**
 * The string, flattened in place. V8 keeps a concatenated string as a tree of its pieces (a
 * `randomUUID()` id is one: a dozen nodes of 32 bytes over its 36 characters, and a text added
 * up piece by piece is one per piece); once flattened, the tree's root points at one flat copy,
 * which the next collection puts in its place, so a snapshot kept for the session's lifetime
 * holds flat strings.
 */
function flatString(value: string): string {
  // Shorter concatenations are flat already (V8 makes no tree under 13 characters).
  if (value.length >= 13) ANY_START.test(value);
  return value;
}
