import { deserialize, EJSON, ObjectId, serialize, type Document } from "bson";
import { Query } from "mingo";

/** A command failure, answered as `{ ok: 0, errmsg, code, codeName }`. */
export class CommandError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
    readonly extra: Document = {},
  ) {
    super(message);
  }
}

export interface IndexSpec {
  name: string;
  key: Record<string, number | string>;
  unique?: boolean;
  sparse?: boolean;
  partialFilterExpression?: Document;
}

/** A copy that shares nothing with the stored document (BSON round trip keeps BSON types). */
export function cloneDocument<T extends Document>(doc: T): T {
  return deserialize(serialize(doc)) as T;
}

function valueAt(doc: Document, path: string): unknown {
  let current: unknown = doc;
  for (const part of path.split(".")) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** A duplicate-key failure worded as MongoDB words it (code 11000). */
export function duplicateKeyError(ns: string, index: IndexSpec, doc: Document): CommandError {
  const keyValue: Document = {};
  for (const field of Object.keys(index.key)) keyValue[field] = valueAt(doc, field) ?? null;
  return new CommandError(
    11000,
    "DuplicateKey",
    `E11000 duplicate key error collection: ${ns} index: ${index.name} dup key: ${EJSON.stringify(keyValue)}`,
    {
      keyPattern: index.key,
      keyValue,
    },
  );
}

/**
 * Documents of one collection plus its indexes. Unique indexes are enforced with one map per
 * index (key tuple → document), so inserts stay O(1) however large the collection grows.
 */
export class InMemoryCollection {
  readonly docs: Document[] = [];
  readonly indexes: IndexSpec[] = [{ name: "_id_", key: { _id: 1 }, unique: true }];
  private readonly uniqueMaps = new Map<string, Map<string, Document>>([["_id_", new Map()]]);

  constructor(readonly ns: string) {}

  /** The key of `doc` in a unique index, or undefined when the index does not cover it. */
  private keyOf(index: IndexSpec, doc: Document): string | undefined {
    if (index.partialFilterExpression && !new Query(index.partialFilterExpression).test(doc)) return undefined;
    const values = Object.keys(index.key).map((field) => valueAt(doc, field));
    if (index.sparse && values.every((v) => v === undefined)) return undefined;
    return EJSON.stringify(
      values.map((v) => v ?? null),
      { relaxed: false },
    );
  }

  private uniqueIndexes(): IndexSpec[] {
    return this.indexes.filter((i) => i.unique);
  }

  /** Throws the duplicate-key error `doc` would cause, ignoring `self` (the document it replaces). */
  private checkUnique(doc: Document, self?: Document): void {
    for (const index of this.uniqueIndexes()) {
      const key = this.keyOf(index, doc);
      if (key === undefined) continue;
      const holder = this.uniqueMaps.get(index.name)?.get(key);
      if (holder && holder !== self) throw duplicateKeyError(this.ns, index, doc);
    }
  }

  private track(doc: Document): void {
    for (const index of this.uniqueIndexes()) {
      const key = this.keyOf(index, doc);
      if (key !== undefined) this.uniqueMaps.get(index.name)?.set(key, doc);
    }
  }

  private untrack(doc: Document): void {
    for (const index of this.uniqueIndexes()) {
      const key = this.keyOf(index, doc);
      const map = this.uniqueMaps.get(index.name);
      if (key !== undefined && map?.get(key) === doc) map.delete(key);
    }
  }

  insert(input: Document): Document {
    const doc = input._id === undefined ? { _id: new ObjectId(), ...input } : input;
    this.checkUnique(doc);
    this.docs.push(doc);
    this.track(doc);
    return doc;
  }

  /** Swaps `current` for `next` (same _id required), keeping the unique maps right. */
  replace(current: Document, next: Document): void {
    const at = this.docs.indexOf(current);
    if (at < 0) throw new CommandError(8, "UnknownError", "document vanished during update");
    if (EJSON.stringify(current._id, { relaxed: false }) !== EJSON.stringify(next._id, { relaxed: false })) {
      throw new CommandError(
        66,
        "ImmutableField",
        "Performing an update on the path '_id' would modify the immutable field '_id'",
      );
    }
    this.checkUnique(next, current);
    this.untrack(current);
    this.docs[at] = next;
    this.track(next);
  }

  remove(doc: Document): void {
    const at = this.docs.indexOf(doc);
    if (at < 0) return;
    this.docs.splice(at, 1);
    this.untrack(doc);
  }

  /** Adds an index; an existing unique violation fails as MongoDB fails (11000). */
  createIndex(spec: IndexSpec): "created" | "exists" {
    const existing = this.indexes.find((i) => i.name === spec.name);
    const sameKey = this.indexes.find((i) => EJSON.stringify(i.key) === EJSON.stringify(spec.key));
    if (existing || sameKey) {
      const other = (existing ?? sameKey)!;
      const same =
        EJSON.stringify(other.key) === EJSON.stringify(spec.key) &&
        Boolean(other.unique) === Boolean(spec.unique) &&
        other.name === spec.name;
      if (same) return "exists";
      throw new CommandError(
        85,
        "IndexOptionsConflict",
        `An existing index has the same name or key as the requested index: ${other.name}`,
      );
    }
    if (spec.unique) {
      const map = new Map<string, Document>();
      for (const doc of this.docs) {
        const key = this.keyOf(spec, doc);
        if (key === undefined) continue;
        if (map.has(key)) throw duplicateKeyError(this.ns, spec, doc);
        map.set(key, doc);
      }
      this.uniqueMaps.set(spec.name, map);
    }
    this.indexes.push(spec);
    return "created";
  }

  dropIndex(name: string): void {
    if (name === "_id_") throw new CommandError(72, "InvalidOptions", "cannot drop _id index");
    const at = this.indexes.findIndex((i) => i.name === name);
    if (at < 0) throw new CommandError(27, "IndexNotFound", `index not found with name [${name}]`);
    this.indexes.splice(at, 1);
    this.uniqueMaps.delete(name);
  }
}
