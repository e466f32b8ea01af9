/**
 * Records keyed by data (state keys, artifact names, ids) must treat every key as an ordinary
 * own property. Plain assignment and `Object.assign` do not: `obj["__proto__"] = v` re-parents
 * the object instead of storing a key, and `key in obj` finds inherited names such as
 * `constructor`. These helpers are the only way such records are read and written.
 */

/** Stores `value` under `key` as an own, enumerable property (also for `__proto__`). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

/** `Object.assign` for data records: every own enumerable key of `source`, `__proto__` included. */
export function assignOwn<T extends Record<string, unknown>>(target: T, source: Record<string, unknown>): T {
  for (const key of Object.keys(source)) setOwn(target, key, source[key]);
  return target;
}

/** True when the record has at least one own enumerable key (without listing them). */
export function hasOwnKeys(record: object): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/** True when `key` is an own property (never an inherited one like `constructor`). */
export function hasOwnKey(record: object, key: string): boolean {
  return Object.hasOwn(record, key);
}

/** The own value under `key`, or undefined (inherited names read as missing). */
export function getOwn<T = unknown>(record: Record<string, unknown>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? (record[key] as T) : undefined;
}
