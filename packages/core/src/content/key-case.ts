// ADK writes recorded requests and responses with the snake_case field names of its Python
// types (`system_instruction`, `function_call`); agentkit's objects use camelCase. These
// convert the field names only: user data (function args, tool results, labels, state, raw JSON
// schemas) keeps its keys, and the property names of a schema keep theirs.

import { setOwn } from "../sessions/own-keys.js";

/** Values copied untouched: their keys are the user's, not field names. */
const OPAQUE_KEYS = new Set([
  "args",
  "response",
  "labels",
  "customMetadata",
  "custom_metadata",
  "parametersJsonSchema",
  "parameters_json_schema",
  "responseJsonSchema",
  "response_json_schema",
  "example",
  "default",
  "enum",
  "state",
  "stateDelta",
  "state_delta",
  "artifactDelta",
  "artifact_delta",
  "requestedAuthConfigs",
  "requested_auth_configs",
  "requestedToolConfirmations",
  "requested_tool_confirmations",
]);

/** Values mapping user-chosen names to schemas: names kept, schemas converted. */
const NAME_MAP_KEYS = new Set(["properties", "$defs", "defs"]);

export function camelToSnake(key: string): string {
  return key.replace(/(?<=[a-z0-9])([A-Z])/g, (_, c: string) => `_${c.toLowerCase()}`);
}

export function snakeToCamel(key: string): string {
  // Most keys have no underscore (camelCase JSON, as agentkit writes it): no regular expression.
  if (!key.includes("_")) return key;
  return key.replace(/(?<=[a-zA-Z0-9])_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/**
 * A copy with its top-level keys in camelCase (values untouched): Python clients and ADK's files
 * write `app_name`, JS clients `appName`. When both spellings are present the camelCase one wins,
 * in either order. Keys are data (a client's JSON): each is an own key of the copy (`__proto__`
 * too), and an inherited name (`toString`) never counts as a spelling already present.
 */
export function camelizeKeys(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const camel = snakeToCamel(key);
    if (camel === key || !Object.hasOwn(record, camel)) setOwn(out, camel, record[key]);
  }
  return out;
}

/** More keys a caller's format treats as user data (camelCase spelling). */
export interface KeyCaseOptions {
  /** Values copied untouched. */
  opaque?: ReadonlySet<string>;
  /** Values mapping user-chosen names to converted objects. */
  nameMaps?: ReadonlySet<string>;
}

/** A deep copy of `value` with its field names converted by `rename`. */
export function convertKeys(value: unknown, rename: (key: string) => string, options: KeyCaseOptions = {}): unknown {
  if (Array.isArray(value)) return value.map((item) => convertKeys(item, rename, options));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
    const name = rename(key);
    const bare = snakeToCamel(key);
    // Names are the input's (a recording, a user's file): own keys, `__proto__` included.
    if (OPAQUE_KEYS.has(key) || OPAQUE_KEYS.has(bare) || options.opaque?.has(bare))
      setOwn(out, name, structuredClone(inner));
    else if (
      (NAME_MAP_KEYS.has(key) || options.nameMaps?.has(bare)) &&
      inner !== null &&
      typeof inner === "object" &&
      !Array.isArray(inner)
    ) {
      setOwn(
        out,
        name,
        Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).map(([k, v]) => [k, convertKeys(v, rename, options)]),
        ),
      );
    } else setOwn(out, name, convertKeys(inner, rename, options));
  }
  return out;
}

export const toSnakeCase = (value: unknown): unknown => convertKeys(value, camelToSnake);
export const toCamelCase = (value: unknown): unknown => convertKeys(value, snakeToCamel);
