import { setOwn } from "../sessions/own-keys.js";

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
    for (let i = 0; i < n; i++) copy[i] = deepCopy(value[i]);
    return copy as T;
  }
  if (!isPlainRecord(value)) return structuredClone(value);
  const out: Record<string, unknown> = {};
  // `for…in` + own check: the order of `Object.keys` without allocating its array.
  for (const key in value) {
    if (Object.hasOwn(value, key)) setOwn(out, key, deepCopy((value as Record<string, unknown>)[key]));
  }
  return out as T;
}

/** `deepFreeze(deepCopy(value))` in one pass: each object of the copy is frozen as it is made. */
export function frozenCopy<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const n = value.length;
    const copy = new Array(n);
    for (let i = 0; i < n; i++) copy[i] = frozenCopy(value[i]);
    return Object.freeze(copy) as T;
  }
  if (!isPlainRecord(value)) return deepFreeze(structuredClone(value));
  const out: Record<string, unknown> = {};
  for (const key in value) {
    if (Object.hasOwn(value, key)) setOwn(out, key, frozenCopy((value as Record<string, unknown>)[key]));
  }
  return Object.freeze(out) as T;
}

/**
 * An object made by a literal, `Object.create(null)` or a class-less prototype chain of one
 * level (what JSON-like data is). `Object.prototype` is compared first: nearly every value is
 * a literal, and that answer needs one prototype read instead of two.
 */
function isPlainRecord(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as object | null;
  return proto === Object.prototype || proto === null || Object.getPrototypeOf(proto) === null;
}

/** Freezes a value and everything it holds (objects and arrays), in place; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}
