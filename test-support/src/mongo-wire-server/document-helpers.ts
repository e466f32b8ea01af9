import type { Document } from "bson";
import { update as applyUpdate } from "mingo";

// Small helpers shared by the test server's command handlers.

const DEFAULT_BATCH_SIZE = 101;

export function isOperatorUpdate(u: unknown): u is Document {
  return typeof u === "object" && u !== null && !Array.isArray(u) && Object.keys(u).some((k) => k.startsWith("$"));
}

export function hasKeys(spec: unknown): spec is Document {
  return typeof spec === "object" && spec !== null && Object.keys(spec).length > 0;
}

export function batchSizeOf(value: unknown): number {
  return typeof value === "number" && value > 0 ? value : DEFAULT_BATCH_SIZE;
}

/** The seed of an upserted document: the query's plain equality fields. */
export function upsertSeed(query: Document): Document {
  const seed: Document = {};
  const set: Document = {};
  for (const [key, value] of Object.entries(query)) {
    if (key.startsWith("$")) continue;
    const isOperatorExpr = hasKeys(value) && Object.keys(value).every((k) => k.startsWith("$"));
    if (isOperatorExpr) {
      if ("$eq" in (value as Document)) set[key] = (value as Document).$eq;
      continue;
    }
    set[key] = value;
  }
  // mingo refuses to $set _id, so top-level fields are assigned and only dotted paths go through it.
  const dotted: Document = {};
  for (const [key, value] of Object.entries(set)) {
    if (key.includes(".")) dotted[key] = value;
    else seed[key] = value;
  }
  if (Object.keys(dotted).length > 0) applyUpdate(seed, { $set: dotted });
  return seed;
}
