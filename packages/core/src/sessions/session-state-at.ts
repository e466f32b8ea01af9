import type { Event } from "../events/event.js";
import { getOwn, hasOwnKey, setOwn } from "./own-keys.js";
import { scopeOfKey } from "./state.js";

/**
 * The session-scoped state as it was just before `events[index]`, computed from the session's
 * current state and its events. Keys no event at or after `index` wrote keep their current value
 * (so state given to `createSession`, which no event records, survives). A key written at or
 * after `index` takes the last value an earlier event gave it, or `null` when none did (`null`
 * is how a removed key reads; ADK's rewind does the same). `app:` and `user:` keys are shared
 * with other sessions and left out.
 */
export function sessionStateAt(
  currentState: Record<string, unknown>,
  events: readonly Event[],
  index: number,
): Record<string, unknown> {
  const before: Record<string, unknown> = {};
  for (const event of events.slice(0, index)) {
    for (const [key, value] of Object.entries(event.actions?.stateDelta ?? {})) {
      if (scopeOfKey(key) === "session") setOwn(before, key, value);
    }
  }
  const state: Record<string, unknown> = {};
  for (const key of Object.keys(currentState)) {
    if (scopeOfKey(key) === "session") setOwn(state, key, currentState[key]);
  }
  for (const event of events.slice(index)) {
    for (const key of Object.keys(event.actions?.stateDelta ?? {})) {
      if (scopeOfKey(key) !== "session") continue;
      setOwn(state, key, hasOwnKey(before, key) ? getOwn(before, key) : null);
    }
  }
  return state;
}

/** The version of each session-scoped artifact recorded by `events[0..index)` (`user:` ones are shared). */
export function artifactVersionsAt(events: readonly Event[], index: number): Map<string, number> {
  const versions = new Map<string, number>();
  for (const event of events.slice(0, index)) {
    for (const [filename, version] of Object.entries(event.actions?.artifactDelta ?? {})) {
      if (!filename.startsWith("user:")) versions.set(filename, version);
    }
  }
  return versions;
}
