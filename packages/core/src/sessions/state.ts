import { hasOwnKey, setOwn } from "./own-keys.js";

/** State key prefixes and their scope. */
export const StatePrefix = {
  /** Shared by every user and session of the app. */
  APP: "app:",
  /** Shared by every session of one user (of one app). */
  USER: "user:",
  /** Lives for the current invocation only; never persisted. */
  TEMP: "temp:",
} as const;

export const APP_PREFIX = StatePrefix.APP;
export const USER_PREFIX = StatePrefix.USER;
export const TEMP_PREFIX = StatePrefix.TEMP;

/** Which store a state key belongs to. */
export type StateScope = "app" | "user" | "temp" | "session";

export function scopeOfKey(key: string): StateScope {
  if (key.startsWith(APP_PREFIX)) return "app";
  if (key.startsWith(USER_PREFIX)) return "user";
  if (key.startsWith(TEMP_PREFIX)) return "temp";
  return "session";
}

/** Reading side of `State`. */
export interface ReadonlyState {
  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  has(key: string): boolean;
  toRecord(): Record<string, unknown>;
}

/**
 * A view of session state that records every write as a delta. Reads see the current value
 * merged with pending writes; the delta becomes an event's `actions.stateDelta`, which the
 * session service applies when the event is appended.
 */
export class State implements ReadonlyState {
  private readonly value: Record<string, unknown>;
  private readonly delta: Record<string, unknown>;

  constructor(value: Record<string, unknown> = {}, delta: Record<string, unknown> = {}) {
    this.value = value;
    this.delta = delta;
  }

  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    // Own keys only: an inherited name such as `constructor` is not state.
    if (hasOwnKey(this.delta, key)) return this.delta[key] as T;
    if (hasOwnKey(this.value, key)) return this.value[key] as T;
    return defaultValue;
  }

  set(key: string, value: unknown): void {
    setOwn(this.value, key, value);
    setOwn(this.delta, key, value);
  }

  has(key: string): boolean {
    return hasOwnKey(this.delta, key) || hasOwnKey(this.value, key);
  }

  /** True when writes are pending. */
  hasDelta(): boolean {
    return Object.keys(this.delta).length > 0;
  }

  /** Applies several writes at once. */
  update(values: Record<string, unknown>): void {
    for (const key of Object.keys(values)) this.set(key, values[key]);
  }

  /** The merged state as a plain object (a copy). */
  toRecord(): Record<string, unknown> {
    return { ...this.value, ...this.delta };
  }

  /** The pending writes (a copy). */
  getDelta(): Record<string, unknown> {
    return { ...this.delta };
  }
}

/** Whether `delta` has a `temp:` key of its own. */
export function hasTempKey(delta: Record<string, unknown>): boolean {
  for (const key in delta) if (Object.hasOwn(delta, key) && key.startsWith(TEMP_PREFIX)) return true;
  return false;
}

/** Drops `temp:` keys: what of a state delta may be persisted. */
export function withoutTempKeys(delta: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(delta)) if (!k.startsWith(TEMP_PREFIX)) setOwn(out, k, v);
  return out;
}

/** Splits a state delta by scope; prefixes are stripped from app and user keys. */
export function splitStateDelta(delta: Record<string, unknown>): {
  app: Record<string, unknown>;
  user: Record<string, unknown>;
  session: Record<string, unknown>;
} {
  const app: Record<string, unknown> = {};
  const user: Record<string, unknown> = {};
  const session: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(delta)) {
    switch (scopeOfKey(k)) {
      case "app":
        setOwn(app, k.slice(APP_PREFIX.length), v);
        break;
      case "user":
        setOwn(user, k.slice(USER_PREFIX.length), v);
        break;
      case "session":
        setOwn(session, k, v);
        break;
      case "temp":
        break;
    }
  }
  return { app, user, session };
}

/**
 * Merges stored app, user and session state into the view a session exposes, each value passed
 * through `copy` on the way (a store that hands out copies makes them here, in the same pass).
 */
export function mergeState(
  app: Record<string, unknown>,
  user: Record<string, unknown>,
  session: Record<string, unknown>,
  copy: (value: unknown) => unknown = same,
): Record<string, unknown> {
  const merged: Record<string, unknown> = {};
  // `for…in` with an own check: the keys in `Object.keys` order, without listing them first. A
  // spread and then replacing the values in place cost half as much again on a state of 10,000
  // keys (V8 keeps so large a record as a hash table, which is what copying it costs).
  for (const key in session) if (Object.hasOwn(session, key)) setOwn(merged, key, copy(session[key]));
  for (const key in app) if (Object.hasOwn(app, key)) setOwn(merged, APP_PREFIX + key, copy(app[key]));
  for (const key in user) if (Object.hasOwn(user, key)) setOwn(merged, USER_PREFIX + key, copy(user[key]));
  return merged;
}

function same(value: unknown): unknown {
  return value;
}

/**
 * A read-only view of a state record: reads go through to it, nothing is copied until
 * `toRecord`. What `ReadonlyContext.state` hands to instruction providers and the like, which
 * read a key or two of what may be a large state, once per model call.
 */
export class StateReader implements ReadonlyState {
  private readonly value: Record<string, unknown>;

  constructor(value: Record<string, unknown>) {
    this.value = value;
  }

  get<T = unknown>(key: string): T | undefined;
  get<T>(key: string, defaultValue: T): T;
  get<T>(key: string, defaultValue?: T): T | undefined {
    return hasOwnKey(this.value, key) ? (this.value[key] as T) : defaultValue;
  }

  has(key: string): boolean {
    return hasOwnKey(this.value, key);
  }

  /** The state as a plain object (a copy). */
  toRecord(): Record<string, unknown> {
    return { ...this.value };
  }
}
