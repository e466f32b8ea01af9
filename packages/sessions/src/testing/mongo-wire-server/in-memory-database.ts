import { Long, type Document } from "bson";
import { aggregate, find, Query, update as applyUpdate } from "mingo";
import { cloneDocument, CommandError, InMemoryCollection, type IndexSpec } from "./in-memory-collection.js";

/** What the server claims to be: MongoDB 7.0 (wire version 21), a standalone writable primary. */
const MAX_WIRE_VERSION = 21;
const DEFAULT_BATCH_SIZE = 101;

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
}

/** A `failCommand` fail point, set with `configureFailPoint` as on a mongod with test commands. */
export interface FailPoint {
  commands: string[];
  remaining: number;
  closeConnection: boolean;
  errorCode?: number;
  errmsg?: string;
}

/** What a command handler may ask the connection to do instead of replying. */
export type CommandOutcome = { reply: Document } | { closeConnection: true };

type Handler = (db: string, cmd: Document) => Document;

function isOperatorUpdate(u: unknown): u is Document {
  return typeof u === "object" && u !== null && !Array.isArray(u) && Object.keys(u).some((k) => k.startsWith("$"));
}

function hasKeys(spec: unknown): spec is Document {
  return typeof spec === "object" && spec !== null && Object.keys(spec).length > 0;
}

function batchSizeOf(value: unknown): number {
  return typeof value === "number" && value > 0 ? value : DEFAULT_BATCH_SIZE;
}

/** The seed of an upserted document: the query's plain equality fields. */
function upsertSeed(query: Document): Document {
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

/**
 * An in-memory MongoDB: databases of collections, evaluated with mingo. It implements the
 * commands the official driver sends for CRUD, indexes, cursors and simple aggregation, and
 * answers everything else with MongoDB's own "no such command" error.
 */
export class InMemoryDatabase {
  private readonly databases = new Map<string, Map<string, InMemoryCollection>>();
  private readonly cursors = new Map<number, OpenCursor>();
  private nextCursorId = 1;
  private failPoint: FailPoint | undefined;
  private readonly handlers: Record<string, Handler>;
  /** How many commands ran, by name (tests read it to check what the driver sent). */
  readonly commandCounts = new Map<string, number>();

  constructor() {
    const hello: Handler = () => ({
      helloOk: true,
      isWritablePrimary: true,
      ismaster: true,
      maxBsonObjectSize: 16 * 1024 * 1024,
      maxMessageSizeBytes: 48_000_000,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      // With a session timeout the driver attaches lsid to commands and sends endSessions.
      logicalSessionTimeoutMinutes: 30,
      connectionId: 1,
      minWireVersion: 0,
      maxWireVersion: MAX_WIRE_VERSION,
      readOnly: false,
      ok: 1,
    });
    this.handlers = {
      hello,
      ismaster: hello,
      isMaster: hello,
      ping: () => ({ ok: 1 }),
      buildInfo: () => ({ version: "7.0.0", versionArray: [7, 0, 0, 0], gitVersion: "agentkit-mongo-wire-server", bits: 64, maxBsonObjectSize: 16 * 1024 * 1024, ok: 1 }),
      buildinfo: () => this.handlers.buildInfo!("admin", {}),
      getParameter: () => ({ ok: 1 }),
      endSessions: () => ({ ok: 1 }),
      killCursors: (_db, cmd) => this.killCursors(cmd),
      insert: (db, cmd) => this.insert(db, cmd),
      find: (db, cmd) => this.find(db, cmd),
      getMore: (db, cmd) => this.getMore(db, cmd),
      update: (db, cmd) => this.update(db, cmd),
      delete: (db, cmd) => this.delete(db, cmd),
      findAndModify: (db, cmd) => this.findAndModify(db, cmd),
      findandmodify: (db, cmd) => this.findAndModify(db, { ...cmd, findAndModify: cmd.findandmodify }),
      count: (db, cmd) => this.count(db, cmd),
      distinct: (db, cmd) => this.distinct(db, cmd),
      aggregate: (db, cmd) => this.aggregate(db, cmd),
      createIndexes: (db, cmd) => this.createIndexes(db, cmd),
      listIndexes: (db, cmd) => this.listIndexes(db, cmd),
      dropIndexes: (db, cmd) => this.dropIndexes(db, cmd),
      listCollections: (db, cmd) => this.listCollections(db, cmd),
      listDatabases: () => ({ databases: [...this.databases.keys()].map((name) => ({ name, sizeOnDisk: 0, empty: false })), totalSize: 0, ok: 1 }),
      create: (db, cmd) => this.create(db, cmd),
      drop: (db, cmd) => this.drop(db, cmd),
      dropDatabase: (db) => {
        this.databases.delete(db);
        return { dropped: db, ok: 1 };
      },
      configureFailPoint: (_db, cmd) => this.configureFailPoint(cmd),
      commitTransaction: () => this.noTransactions(),
      abortTransaction: () => this.noTransactions(),
    };
  }

  /** Runs one command; never throws (errors become `ok: 0` replies). */
  run(db: string, cmd: Document): CommandOutcome {
    const name = Object.keys(cmd)[0] ?? "";
    this.commandCounts.set(name, (this.commandCounts.get(name) ?? 0) + 1);
    const failPoint = this.failPoint;
    if (failPoint && failPoint.commands.includes(name)) {
      failPoint.remaining -= 1;
      if (failPoint.remaining <= 0) this.failPoint = undefined;
      if (failPoint.closeConnection) return { closeConnection: true };
      return { reply: { ok: 0, code: failPoint.errorCode ?? 8, codeName: "FailPoint", errmsg: failPoint.errmsg ?? `failCommand fail point on ${name}` } };
    }
    try {
      if (cmd.txnNumber !== undefined || cmd.startTransaction !== undefined) this.noTransactions();
      const handler = this.handlers[name];
      if (!handler) throw new CommandError(59, "CommandNotFound", `no such command: '${name}'`);
      return { reply: handler(db, cmd) };
    } catch (error) {
      if (error instanceof CommandError) return { reply: { ok: 0, errmsg: error.message, code: error.code, codeName: error.codeName, ...error.extra } };
      return { reply: { ok: 0, errmsg: error instanceof Error ? error.message : String(error), code: 8, codeName: "UnknownError" } };
    }
  }

  private noTransactions(): never {
    throw new CommandError(20, "IllegalOperation", "Transaction numbers are only allowed on a replica set member or mongos (the agentkit test server is a standalone without transactions)");
  }

  private collection(db: string, name: unknown, create: boolean): InMemoryCollection | undefined {
    if (typeof name !== "string" || name === "") throw new CommandError(73, "InvalidNamespace", `invalid collection name: ${String(name)}`);
    let database = this.databases.get(db);
    if (!database) {
      if (!create) return undefined;
      this.databases.set(db, (database = new Map()));
    }
    let collection = database.get(name);
    if (!collection && create) database.set(name, (collection = new InMemoryCollection(`${db}.${name}`)));
    return collection;
  }

  private matching(collection: InMemoryCollection | undefined, filter: unknown): Document[] {
    if (!collection) return [];
    const query = new Query(hasKeys(filter) ? filter : {});
    return collection.docs.filter((doc) => query.test(doc));
  }

  private openCursor(ns: string, docs: Document[], batchSize: number, singleBatch: boolean, field: "firstBatch" | "nextBatch"): Document {
    const batch = docs.slice(0, batchSize).map(cloneDocument);
    let id = 0;
    if (!singleBatch && docs.length > batchSize) {
      id = this.nextCursorId++;
      this.cursors.set(id, { ns, docs, position: batchSize });
    }
    return { cursor: { [field]: batch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  private insert(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.insert, true)!;
    const documents = (cmd.documents as Document[] | undefined) ?? [];
    const ordered = cmd.ordered !== false;
    const writeErrors: Document[] = [];
    let n = 0;
    for (const [index, doc] of documents.entries()) {
      try {
        collection.insert(doc);
        n++;
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        writeErrors.push({ index, code: error.code, errmsg: error.message, ...error.extra });
        if (ordered) break;
      }
    }
    return writeErrors.length > 0 ? { n, writeErrors, ok: 1 } : { n, ok: 1 };
  }

  private find(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.find, false);
    const ns = `${db}.${String(cmd.find)}`;
    const cursor = find(collection?.docs ?? [], hasKeys(cmd.filter) ? cmd.filter : {}, hasKeys(cmd.projection) ? cmd.projection : undefined);
    // mingo rejects an empty sort specification.
    if (hasKeys(cmd.sort)) cursor.sort(cmd.sort as Record<string, 1 | -1>);
    if (typeof cmd.skip === "number" && cmd.skip > 0) cursor.skip(cmd.skip);
    const limit = typeof cmd.limit === "number" ? Math.abs(cmd.limit) : 0;
    if (limit > 0) cursor.limit(limit);
    const docs = cursor.all() as Document[];
    const singleBatch = cmd.singleBatch === true || (typeof cmd.limit === "number" && cmd.limit < 0);
    return this.openCursor(ns, docs, batchSizeOf(cmd.batchSize), singleBatch, "firstBatch");
  }

  private getMore(_db: string, cmd: Document): Document {
    const id = Number(cmd.getMore);
    const open = this.cursors.get(id);
    if (!open) throw new CommandError(43, "CursorNotFound", `cursor id ${id} not found`);
    const size = batchSizeOf(cmd.batchSize);
    const batch = open.docs.slice(open.position, open.position + size).map(cloneDocument);
    open.position += size;
    const done = open.position >= open.docs.length;
    if (done) this.cursors.delete(id);
    return { cursor: { nextBatch: batch, id: Long.fromNumber(done ? 0 : id), ns: open.ns }, ok: 1 };
  }

  private killCursors(cmd: Document): Document {
    const ids = ((cmd.cursors as unknown[] | undefined) ?? []).map((c) => Number(c));
    const killed = ids.filter((id) => this.cursors.delete(id));
    const notFound = ids.filter((id) => !killed.includes(id));
    return { cursorsKilled: killed.map((id) => Long.fromNumber(id)), cursorsNotFound: notFound.map((id) => Long.fromNumber(id)), cursorsAlive: [], cursorsUnknown: [], ok: 1 };
  }

  /**
   * Applies one update specification to a copy of `doc` and returns the copy: operators
   * (through mingo), an aggregation pipeline, or a replacement.
   */
  private updated(doc: Document, u: unknown, arrayFilters: Document[] | undefined, inserting: boolean): Document {
    if (Array.isArray(u)) {
      const [result] = aggregate([cloneDocument(doc)], u as Document[]);
      if (!result) throw new CommandError(9, "FailedToParse", "the update pipeline removed the document");
      return { ...result, _id: doc._id };
    }
    if (isOperatorUpdate(u)) {
      const next = cloneDocument(doc);
      const { $setOnInsert, ...operators } = u;
      for (const op of Object.keys(operators)) {
        if (!["$set", "$unset", "$inc", "$mul", "$min", "$max", "$push", "$pull", "$pullAll", "$pop", "$addToSet", "$rename", "$currentDate", "$bit"].includes(op)) {
          throw new CommandError(9, "FailedToParse", `Unknown modifier: ${op}`);
        }
      }
      if (Object.keys(operators).length > 0) applyUpdate(next, operators, arrayFilters);
      if (inserting && hasKeys($setOnInsert)) applyUpdate(next, { $set: $setOnInsert });
      return next;
    }
    if (typeof u !== "object" || u === null) throw new CommandError(9, "FailedToParse", "update must be a document or a pipeline");
    return { ...cloneDocument(u as Document), _id: doc._id };
  }

  /** Updates the first (or every) match, or upserts; returns what happened. */
  private updateOne(
    collection: InMemoryCollection,
    spec: { q: Document; u: unknown; upsert?: boolean; multi?: boolean; arrayFilters?: Document[]; sort?: Document },
  ): { matched: number; modified: number; upsertedId?: unknown; before?: Document; after?: Document } {
    let targets = this.matching(collection, spec.q);
    if (hasKeys(spec.sort) && targets.length > 1) targets = find(targets, {}).sort(spec.sort as Record<string, 1 | -1>).all() as Document[];
    if (!spec.multi) targets = targets.slice(0, 1);
    if (targets.length === 0) {
      if (!spec.upsert) return { matched: 0, modified: 0 };
      const seed = upsertSeed(spec.q);
      const created = isOperatorUpdate(spec.u) || Array.isArray(spec.u) ? this.updated(seed, spec.u, spec.arrayFilters, true) : { ...(spec.u as Document), ...(seed._id !== undefined ? { _id: seed._id } : {}) };
      const inserted = collection.insert(created);
      return { matched: 0, modified: 0, upsertedId: inserted._id, after: inserted };
    }
    let modified = 0;
    let first: { before: Document; after: Document } | undefined;
    for (const target of targets) {
      const next = this.updated(target, spec.u, spec.arrayFilters, false);
      collection.replace(target, next);
      if (JSON.stringify(target) !== JSON.stringify(next)) modified++;
      first ??= { before: target, after: next };
    }
    return { matched: targets.length, modified, ...first };
  }

  private update(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.update, true)!;
    const ordered = cmd.ordered !== false;
    const writeErrors: Document[] = [];
    const upserted: Document[] = [];
    let n = 0;
    let nModified = 0;
    for (const [index, spec] of ((cmd.updates as Document[] | undefined) ?? []).entries()) {
      try {
        const result = this.updateOne(collection, spec as never);
        if (result.upsertedId !== undefined) {
          upserted.push({ index, _id: result.upsertedId });
          n += 1;
        } else {
          n += result.matched;
          nModified += result.modified;
        }
      } catch (error) {
        if (!(error instanceof CommandError)) throw error;
        writeErrors.push({ index, code: error.code, errmsg: error.message, ...error.extra });
        if (ordered) break;
      }
    }
    return { n, nModified, ...(upserted.length ? { upserted } : {}), ...(writeErrors.length ? { writeErrors } : {}), ok: 1 };
  }

  private delete(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.delete, false);
    let n = 0;
    for (const spec of (cmd.deletes as Document[] | undefined) ?? []) {
      const matches = this.matching(collection, spec.q);
      const victims = spec.limit === 1 ? matches.slice(0, 1) : matches;
      for (const doc of victims) collection?.remove(doc);
      n += victims.length;
    }
    return { n, ok: 1 };
  }

  private findAndModify(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.findAndModify, true)!;
    const query = (cmd.query as Document | undefined) ?? {};
    const project = (doc: Document | undefined) => {
      if (!doc) return null;
      const copy = cloneDocument(doc);
      return hasKeys(cmd.fields) ? ((find([copy], {}, cmd.fields as Document).all()[0] as Document | undefined) ?? null) : copy;
    };
    if (cmd.remove) {
      let matches = this.matching(collection, query);
      if (hasKeys(cmd.sort)) matches = find(matches, {}).sort(cmd.sort as Record<string, 1 | -1>).all() as Document[];
      const victim = matches[0];
      if (victim) collection.remove(victim);
      return { lastErrorObject: { n: victim ? 1 : 0 }, value: project(victim), ok: 1 };
    }
    if (cmd.update === undefined) throw new CommandError(9, "FailedToParse", "Either an update or remove=true must be specified");
    const result = this.updateOne(collection, {
      q: query,
      u: cmd.update,
      upsert: cmd.upsert === true,
      arrayFilters: cmd.arrayFilters as Document[] | undefined,
      sort: cmd.sort as Document | undefined,
    });
    const lastErrorObject: Document = { n: result.matched || (result.upsertedId !== undefined ? 1 : 0), updatedExisting: result.matched > 0 };
    if (result.upsertedId !== undefined) lastErrorObject.upserted = result.upsertedId;
    const value = cmd.new ? project(result.after) : project(result.before);
    return { lastErrorObject, value, ok: 1 };
  }

  private count(db: string, cmd: Document): Document {
    let n = this.matching(this.collection(db, cmd.count, false), cmd.query).length;
    if (typeof cmd.skip === "number") n = Math.max(0, n - cmd.skip);
    if (typeof cmd.limit === "number" && cmd.limit > 0) n = Math.min(n, cmd.limit);
    return { n, ok: 1 };
  }

  private distinct(db: string, cmd: Document): Document {
    const values = aggregate(this.matching(this.collection(db, cmd.distinct, false), cmd.query), [{ $group: { _id: `$${String(cmd.key)}` } }]).map((d) => d._id);
    return { values, ok: 1 };
  }

  private aggregate(db: string, cmd: Document): Document {
    if (typeof cmd.aggregate !== "string") throw new CommandError(115, "CommandNotSupported", "database-level aggregate is not supported by the agentkit test server");
    const pipeline = (cmd.pipeline as Document[] | undefined) ?? [];
    for (const stage of pipeline) {
      const op = Object.keys(stage)[0];
      if (op === "$out" || op === "$merge" || op === "$changeStream") throw new CommandError(115, "CommandNotSupported", `${op} is not supported by the agentkit test server`);
    }
    const collection = this.collection(db, cmd.aggregate, false);
    const docs = aggregate(collection?.docs ?? [], pipeline, {
      collectionResolver: (name: string) => this.collection(db, name, false)?.docs ?? [],
    }) as Document[];
    const cursor = (cmd.cursor as Document | undefined) ?? {};
    return this.openCursor(`${db}.${cmd.aggregate}`, docs, batchSizeOf(cursor.batchSize), false, "firstBatch");
  }

  private createIndexes(db: string, cmd: Document): Document {
    const existed = this.collection(db, cmd.createIndexes, false) !== undefined;
    const collection = this.collection(db, cmd.createIndexes, true)!;
    const before = collection.indexes.length;
    for (const raw of (cmd.indexes as Document[] | undefined) ?? []) {
      if (!hasKeys(raw.key) || typeof raw.name !== "string") throw new CommandError(67, "CannotCreateIndex", "an index needs a key and a name");
      const spec: IndexSpec = { name: raw.name, key: raw.key as IndexSpec["key"] };
      if (raw.unique === true) spec.unique = true;
      if (raw.sparse === true) spec.sparse = true;
      if (hasKeys(raw.partialFilterExpression)) spec.partialFilterExpression = raw.partialFilterExpression;
      collection.createIndex(spec);
    }
    return { createdCollectionAutomatically: !existed, numIndexesBefore: before, numIndexesAfter: collection.indexes.length, ok: 1 };
  }

  private listIndexes(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.listIndexes, false);
    if (!collection) throw new CommandError(26, "NamespaceNotFound", `ns does not exist: ${db}.${String(cmd.listIndexes)}`);
    const docs = collection.indexes.map((i) => ({ v: 2, ...i }));
    return this.openCursor(`${db}.$cmd.listIndexes.${cmd.listIndexes}`, docs, batchSizeOf((cmd.cursor as Document | undefined)?.batchSize), false, "firstBatch");
  }

  private dropIndexes(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.dropIndexes, false);
    if (!collection) throw new CommandError(26, "NamespaceNotFound", `ns not found: ${db}.${String(cmd.dropIndexes)}`);
    const before = collection.indexes.length;
    const names = cmd.index === "*" ? collection.indexes.filter((i) => i.name !== "_id_").map((i) => i.name) : [cmd.index].flat();
    for (const name of names) collection.dropIndex(String(name));
    return { nIndexesWas: before, ok: 1 };
  }

  private listCollections(db: string, cmd: Document): Document {
    const names = [...(this.databases.get(db)?.keys() ?? [])];
    const infos = names.map((name) => ({ name, type: "collection", options: {}, info: { readOnly: false }, idIndex: { v: 2, key: { _id: 1 }, name: "_id_" } }));
    const filtered = hasKeys(cmd.filter) ? infos.filter((i) => new Query(cmd.filter as Document).test(i)) : infos;
    const docs = cmd.nameOnly ? filtered.map((i) => ({ name: i.name, type: i.type })) : filtered;
    return this.openCursor(`${db}.$cmd.listCollections`, docs, batchSizeOf((cmd.cursor as Document | undefined)?.batchSize), false, "firstBatch");
  }

  private create(db: string, cmd: Document): Document {
    if (this.collection(db, cmd.create, false)) throw new CommandError(48, "NamespaceExists", `Collection ${db}.${String(cmd.create)} already exists.`);
    this.collection(db, cmd.create, true);
    return { ok: 1 };
  }

  private drop(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.drop, false);
    if (!collection) throw new CommandError(26, "NamespaceNotFound", "ns not found");
    this.databases.get(db)?.delete(String(cmd.drop));
    return { ns: collection.ns, nIndexesWas: collection.indexes.length, ok: 1 };
  }

  private configureFailPoint(cmd: Document): Document {
    if (cmd.configureFailPoint !== "failCommand") throw new CommandError(72, "InvalidOptions", `unknown fail point ${String(cmd.configureFailPoint)}`);
    if (cmd.mode === "off") {
      this.failPoint = undefined;
      return { count: 0, ok: 1 };
    }
    const mode = cmd.mode as Document | string | undefined;
    const times = typeof mode === "object" && mode !== null && typeof mode.times === "number" ? mode.times : mode === "alwaysOn" ? Number.POSITIVE_INFINITY : 1;
    const data = (cmd.data as Document | undefined) ?? {};
    this.failPoint = {
      commands: (data.failCommands as string[] | undefined) ?? [],
      remaining: times,
      closeConnection: data.closeConnection === true,
      ...(typeof data.errorCode === "number" ? { errorCode: data.errorCode } : {}),
      ...(typeof data.errmsg === "string" ? { errmsg: data.errmsg } : {}),
    };
    return { count: 0, ok: 1 };
  }
}
