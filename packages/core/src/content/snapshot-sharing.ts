import { hasOwnKeys } from "../sessions/own-keys.js";
import { isPlainRecord } from "./plain-record.js";

/**
 * What frozen snapshots (the in-memory store's events, the SQL stores' parsed events) share
 * instead of each holding its own copy. A store keeps its snapshots for the session's lifetime,
 * so every object saved per event is memory saved per event, and fewer objects surviving young
 * collections keep V8 from growing its young generation. Frozen values cannot tell a shared object
 * from an own one: sharing is invisible to readers. Matching compares keys (in order) and values
 * (`Object.is`) directly, so it allocates nothing per snapshot beyond the shared-leaf list.
 */

/** The one frozen empty object and the one frozen empty array. */
export const EMPTY_OBJECT: Readonly<Record<string, never>> = Object.freeze({});
export const EMPTY_ARRAY: readonly never[] = Object.freeze([]);

/** True for the shared empty object or array. */
export function isSharedEmpty(value: unknown): boolean {
  return value === EMPTY_OBJECT || value === EMPTY_ARRAY;
}

/**
 * Marks values agentkit builds frozen all the way down (a final event's usage rollup), so that
 * `frozenCopy` keeps them as they are instead of copying them: one allocation per value instead
 * of two, and nothing for the store's copy to walk. A non-enumerable symbol no caller can name:
 * JSON, spreads and `Object.keys` never see it, and a spread copy of the value is not marked.
 */
const DEEP_FROZEN: unique symbol = Symbol("agentkit.deepFrozen");

/** `value` frozen and marked; everything it holds must be frozen all the way down already. */
export function markDeepFrozen<T extends object>(value: T): T {
  Object.defineProperty(value, DEEP_FROZEN, { value: true });
  return Object.freeze(value);
}

/** True for a value `markDeepFrozen` marked: sharing it is copying it. */
export function isMarkedDeepFrozen(value: object): boolean {
  return (value as { [DEEP_FROZEN]?: boolean })[DEEP_FROZEN] === true;
}

/** A shared frozen object with its key count (keys read only when a candidate has as many). */
interface Shared {
  readonly value: Record<string, unknown>;
  readonly count: number;
  keys?: string[];
}

/**
 * Frozen records whose every value is a shared empty (an event's `actions` when the event changed
 * nothing: four empty maps), one per key list, across snapshots: they hold no data. Bounded: past
 * `MAX_EMPTY_RECORDS` key lists a record is simply not shared.
 */
const emptyRecords: Shared[] = [];
const MAX_EMPTY_RECORDS = 32;
/** Most leaves one snapshot shares (an event has a handful). */
const MAX_LEAVES = 32;
/**
 * Fewest entries a leaf needs to be shared. What repeats within an event is a usage rollup's
 * token counts (six entries, once per scope and model); of smaller leaves only a rollup's
 * one-element list of model names did in the events measured (a few dozen bytes), while a
 * part's text, a call's arguments and a tool's small answer never did, and comparing them all
 * cost 2-3% of an in-process invocation.
 */
const MIN_LEAF_ENTRIES = 3;

/**
 * The sharing of one snapshot (one event): its records of empties are shared with every snapshot,
 * its leaves (objects and arrays of primitives only, such as a usage rollup's token counts
 * repeated per model) only within the snapshot, so no snapshot's size depends on another's data.
 */
export class SnapshotSharing {
  private leaves: Shared[] | undefined;

  /** `record` (frozen, `count` keys, every value a shared empty) or the equal record already shared. */
  emptyRecord<T extends object>(record: T, count: number): T {
    const found = find(emptyRecords, record as Record<string, unknown>, count);
    if (found) return found as T;
    if (emptyRecords.length < MAX_EMPTY_RECORDS) emptyRecords.push({ value: record as Record<string, unknown>, count });
    return record;
  }

  /** `leaf` (frozen, `count` entries, only primitive values) or an equal leaf of this snapshot (of 3+ entries). */
  leaf<T extends object>(leaf: T, count: number): T {
    if (count < MIN_LEAF_ENTRIES) return leaf;
    const leaves = (this.leaves ??= []);
    const found = find(leaves, leaf as Record<string, unknown>, count);
    if (found) return found as T;
    if (leaves.length < MAX_LEAVES) leaves.push({ value: leaf as Record<string, unknown>, count });
    return leaf;
  }
}

/**
 * The shared record of empties that `frozenCopy` would make of `value` (whose own keys are
 * `keys`), found without making the copy: the same keys in the same order, each value an empty
 * array where the shared record has one and an object the copy turns into the empty object
 * elsewhere. Undefined when `value` holds anything else or its key list is not shared yet.
 */
export function sharedEmptyRecordOf(value: Record<string, unknown>, keys: string[]): object | undefined {
  const count = keys.length;
  for (const shared of emptyRecords) {
    // Only records are shared here (`emptyRecord`): a key count decides the candidates.
    if (shared.count !== count) continue;
    shared.keys ??= Object.keys(shared.value);
    if (holdsSameEmpties(value, keys, shared)) return shared.value;
  }
  return undefined;
}

function holdsSameEmpties(value: Record<string, unknown>, keys: string[], shared: Shared): boolean {
  const sharedKeys = shared.keys!;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key !== sharedKeys[i]) return false;
    const child = value[key];
    if (shared.value[key] === EMPTY_ARRAY ? !isEmptyArray(child) : !copiesToEmptyObject(child)) return false;
  }
  return true;
}

function isEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/** What `frozenCopy` copies to `EMPTY_OBJECT`: a plain record without own keys, unless marked. */
function copiesToEmptyObject(value: unknown): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value) || !isPlainRecord(value)) return false;
  return !hasOwnKeys(value) && !(Object.isFrozen(value) && isMarkedDeepFrozen(value));
}

/** The shared value with the same kind, keys in the same order and the same values, if any. */
function find(list: Shared[], value: Record<string, unknown>, count: number): object | undefined {
  const isArray = Array.isArray(value);
  for (const shared of list) {
    if (shared.count !== count || Array.isArray(shared.value) !== isArray) continue;
    shared.keys ??= Object.keys(shared.value);
    if (sameEntries(shared.keys, shared.value, value)) return shared.value;
  }
  return undefined;
}

function sameEntries(keys: string[], shared: Record<string, unknown>, value: Record<string, unknown>): boolean {
  let i = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (keys[i] !== key || !Object.is(shared[key], value[key])) return false;
    i++;
  }
  return i === keys.length;
}
