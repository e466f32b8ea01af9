import { FAILOVER_METADATA_KEY, MODEL_METADATA_KEY, USAGE_METADATA_KEY } from "@agentkit/core";
import { setOwn } from "@agentkit/core/internal";
import { isJsonObject } from "../http/is-json-object.js";

export type JsonObject = Record<string, unknown>;

/** Fields that differ between two runs of the same conversation (ids, timing, usage, model metadata). */
const VOLATILE_FIELDS = new Set([
  "id",
  "timestamp",
  "invocationId",
  "modelVersion",
  "finishReason",
  "usageMetadata",
  "avgLogprobs",
  "cacheMetadata",
  "logprobsResult",
  "citationMetadata",
  "turnComplete",
  "interactionId",
]);

/** `customMetadata` keys that differ between runs: usage rollups and which model answered. */
const VOLATILE_METADATA = [USAGE_METADATA_KEY, MODEL_METADATA_KEY, FAILOVER_METADATA_KEY];

/**
 * The comparable form of a session's events (agent tests): volatile fields dropped, function
 * call ids renamed `fc-1`, `fc-2`… in order of appearance (and every reference to them:
 * responses, long-running ids, confirmation keys, `originalFunctionCall.id`), empty action
 * maps and `thoughtSignature`s removed, partial chunks and content-less user events (state
 * patches such as a session rename) left out, keys sorted.
 */
export function normalizeTestEvents(events: readonly JsonObject[]): JsonObject[] {
  const ids = new Map<string, string>();
  for (const event of events) {
    for (const part of partsOf(event)) {
      const id = (part.functionCall as { id?: unknown } | undefined)?.id;
      if (typeof id === "string" && !ids.has(id)) ids.set(id, `fc-${ids.size + 1}`);
    }
  }
  const rename = (id: unknown) => (typeof id === "string" ? (ids.get(id) ?? id) : id);
  return events
    .filter((e) => e.partial !== true && !(e.author === "user" && e.content === undefined))
    .map((event) => sortKeys(normalizeEvent(event, rename)) as JsonObject);
}

function normalizeEvent(event: JsonObject, rename: (id: unknown) => unknown): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(event)) {
    if (VOLATILE_FIELDS.has(key) || value === null || value === undefined) continue;
    if (key === "partial" && value === false) continue;
    // Event keys are data (an imported event may carry `__proto__`): own keys, never a re-parent.
    setOwn(out, key, value);
  }
  if (isJsonObject(out.customMetadata)) {
    const metadata = { ...out.customMetadata };
    for (const key of VOLATILE_METADATA) delete metadata[key];
    if (Object.keys(metadata).length > 0) out.customMetadata = metadata;
    else delete out.customMetadata;
  }
  if (isJsonObject(out.content) && Array.isArray(out.content.parts)) {
    out.content = { ...out.content, parts: out.content.parts.map((p) => normalizePart(p as JsonObject, rename)) };
  }
  if (Array.isArray(out.longRunningToolIds)) {
    const mapped = out.longRunningToolIds.map(rename).map(String).sort();
    if (mapped.length > 0) out.longRunningToolIds = mapped;
    else delete out.longRunningToolIds;
  }
  if (isJsonObject(out.actions)) {
    const actions: JsonObject = {};
    for (const [key, value] of Object.entries(out.actions)) {
      if (value === null || value === undefined || (isJsonObject(value) && Object.keys(value).length === 0)) continue;
      actions[key] =
        key === "requestedToolConfirmations" || key === "requestedAuthConfigs"
          ? renameKeys(value as JsonObject, rename)
          : value;
    }
    if (Object.keys(actions).length > 0) out.actions = actions;
    else delete out.actions;
  }
  return out;
}

function normalizePart(part: JsonObject, rename: (id: unknown) => unknown): JsonObject {
  const { thoughtSignature: _signature, ...rest } = part;
  const out: JsonObject = { ...rest };
  if (isJsonObject(rest.functionCall)) {
    const call = rest.functionCall;
    out.functionCall = {
      ...call,
      ...(call.id !== undefined ? { id: rename(call.id) } : {}),
      ...(call.args !== undefined ? { args: renameNestedIds(call.args, rename) } : {}),
    };
  }
  if (isJsonObject(rest.functionResponse) && rest.functionResponse.id !== undefined) {
    out.functionResponse = { ...rest.functionResponse, id: rename(rest.functionResponse.id) };
  }
  return out;
}

/** `originalFunctionCall.id` inside a confirmation request's args, and the like. */
function renameNestedIds(value: unknown, rename: (id: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => renameNestedIds(v, rename));
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, v] of Object.entries(value)) setOwn(out, key, key === "id" ? rename(v) : renameNestedIds(v, rename));
  return out;
}

function renameKeys(map: JsonObject, rename: (id: unknown) => unknown): JsonObject {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [String(rename(key)), value]));
}

function partsOf(event: JsonObject): JsonObject[] {
  const parts = (event.content as { parts?: unknown } | undefined)?.parts;
  return Array.isArray(parts) ? (parts.filter(isJsonObject) as JsonObject[]) : [];
}

/** A copy with every object's keys in sorted order (stable JSON for comparison and files). */
export function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys(value[key])]),
  );
}
