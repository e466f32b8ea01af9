import type { Document } from "bson";
import { aggregate, find, Query } from "mingo";
import { Catalog } from "./catalog.js";
import { CursorStore } from "./cursor-store.js";
import { batchSizeOf, hasKeys } from "./document-helpers.js";
import { CommandError, type InMemoryCollection, type IndexSpec } from "./in-memory-collection.js";
import { WriteCommands } from "./write-commands.js";

/** What the server claims to be: MongoDB 7.0 (wire version 21), a standalone writable primary. */
const MAX_WIRE_VERSION = 21;

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

/**
 * An in-memory MongoDB: databases of collections, evaluated with mingo. It implements the
 * commands the official driver sends for CRUD, indexes, cursors and simple aggregation, and
 * answers everything else with MongoDB's own "no such command" error. The steps live in their
 * own files: the catalog of collections, open cursors, and the write commands.
 */
export class InMemoryDatabase {
  private readonly catalog = new Catalog();
  private readonly cursors = new CursorStore();
  private readonly writes = new WriteCommands(this.catalog);
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
      buildInfo: () => ({
        version: "7.0.0",
        versionArray: [7, 0, 0, 0],
        gitVersion: "agentkit-mongo-wire-server",
        bits: 64,
        maxBsonObjectSize: 16 * 1024 * 1024,
        ok: 1,
      }),
      buildinfo: () => this.handlers.buildInfo!("admin", {}),
      getParameter: () => ({ ok: 1 }),
      endSessions: () => ({ ok: 1 }),
      killCursors: (_db, cmd) => this.cursors.kill(cmd),
      insert: (db, cmd) => this.writes.insert(db, cmd),
      find: (db, cmd) => this.find(db, cmd),
      getMore: (_db, cmd) => this.cursors.getMore(cmd),
      update: (db, cmd) => this.writes.update(db, cmd),
      delete: (db, cmd) => this.writes.delete(db, cmd),
      findAndModify: (db, cmd) => this.writes.findAndModify(db, cmd),
      findandmodify: (db, cmd) => this.writes.findAndModify(db, { ...cmd, findAndModify: cmd.findandmodify }),
      count: (db, cmd) => this.count(db, cmd),
      distinct: (db, cmd) => this.distinct(db, cmd),
      aggregate: (db, cmd) => this.aggregate(db, cmd),
      createIndexes: (db, cmd) => this.createIndexes(db, cmd),
      listIndexes: (db, cmd) => this.listIndexes(db, cmd),
      dropIndexes: (db, cmd) => this.dropIndexes(db, cmd),
      listCollections: (db, cmd) => this.listCollections(db, cmd),
      listDatabases: () => ({
        databases: [...this.catalog.databases.keys()].map((name) => ({ name, sizeOnDisk: 0, empty: false })),
        totalSize: 0,
        ok: 1,
      }),
      create: (db, cmd) => this.create(db, cmd),
      drop: (db, cmd) => this.drop(db, cmd),
      dropDatabase: (db) => {
        this.catalog.databases.delete(db);
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
    if (failPoint?.commands.includes(name)) {
      failPoint.remaining -= 1;
      if (failPoint.remaining <= 0) this.failPoint = undefined;
      if (failPoint.closeConnection) return { closeConnection: true };
      return {
        reply: {
          ok: 0,
          code: failPoint.errorCode ?? 8,
          codeName: "FailPoint",
          errmsg: failPoint.errmsg ?? `failCommand fail point on ${name}`,
        },
      };
    }
    try {
      if (cmd.txnNumber !== undefined || cmd.startTransaction !== undefined) this.noTransactions();
      const handler = this.handlers[name];
      if (!handler) throw new CommandError(59, "CommandNotFound", `no such command: '${name}'`);
      return { reply: handler(db, cmd) };
    } catch (error) {
      if (error instanceof CommandError)
        return { reply: { ok: 0, errmsg: error.message, code: error.code, codeName: error.codeName, ...error.extra } };
      return {
        reply: {
          ok: 0,
          errmsg: error instanceof Error ? error.message : String(error),
          code: 8,
          codeName: "UnknownError",
        },
      };
    }
  }

  private noTransactions(): never {
    throw new CommandError(
      20,
      "IllegalOperation",
      "Transaction numbers are only allowed on a replica set member or mongos (the agentkit test server is a " +
        "standalone without transactions)",
    );
  }

  private collection(db: string, name: unknown, create: boolean): InMemoryCollection | undefined {
    return this.catalog.collection(db, name, create);
  }

  private matching(collection: InMemoryCollection | undefined, filter: unknown): Document[] {
    return this.catalog.matching(collection, filter);
  }

  private openCursor(
    ns: string,
    docs: Document[],
    batchSize: number,
    singleBatch: boolean,
    field: "firstBatch" | "nextBatch",
  ): Document {
    return this.cursors.open(ns, docs, batchSize, singleBatch, field);
  }

  private find(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.find, false);
    const ns = `${db}.${String(cmd.find)}`;
    const cursor = find(
      collection?.docs ?? [],
      hasKeys(cmd.filter) ? cmd.filter : {},
      hasKeys(cmd.projection) ? cmd.projection : undefined,
    );
    // mingo rejects an empty sort specification.
    if (hasKeys(cmd.sort)) cursor.sort(cmd.sort as Record<string, 1 | -1>);
    if (typeof cmd.skip === "number" && cmd.skip > 0) cursor.skip(cmd.skip);
    const limit = typeof cmd.limit === "number" ? Math.abs(cmd.limit) : 0;
    if (limit > 0) cursor.limit(limit);
    const docs = cursor.all() as Document[];
    const singleBatch = cmd.singleBatch === true || (typeof cmd.limit === "number" && cmd.limit < 0);
    return this.openCursor(ns, docs, batchSizeOf(cmd.batchSize), singleBatch, "firstBatch");
  }

  private count(db: string, cmd: Document): Document {
    let n = this.matching(this.collection(db, cmd.count, false), cmd.query).length;
    if (typeof cmd.skip === "number") n = Math.max(0, n - cmd.skip);
    if (typeof cmd.limit === "number" && cmd.limit > 0) n = Math.min(n, cmd.limit);
    return { n, ok: 1 };
  }

  private distinct(db: string, cmd: Document): Document {
    const values = aggregate(this.matching(this.collection(db, cmd.distinct, false), cmd.query), [
      { $group: { _id: `$${String(cmd.key)}` } },
    ]).map((d) => d._id);
    return { values, ok: 1 };
  }

  private aggregate(db: string, cmd: Document): Document {
    if (typeof cmd.aggregate !== "string")
      throw new CommandError(
        115,
        "CommandNotSupported",
        "database-level aggregate is not supported by the agentkit test server",
      );
    const pipeline = (cmd.pipeline as Document[] | undefined) ?? [];
    for (const stage of pipeline) {
      const op = Object.keys(stage)[0];
      if (op === "$out" || op === "$merge" || op === "$changeStream")
        throw new CommandError(115, "CommandNotSupported", `${op} is not supported by the agentkit test server`);
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
      if (!hasKeys(raw.key) || typeof raw.name !== "string")
        throw new CommandError(67, "CannotCreateIndex", "an index needs a key and a name");
      const spec: IndexSpec = { name: raw.name, key: raw.key as IndexSpec["key"] };
      if (raw.unique === true) spec.unique = true;
      if (raw.sparse === true) spec.sparse = true;
      if (hasKeys(raw.partialFilterExpression)) spec.partialFilterExpression = raw.partialFilterExpression;
      collection.createIndex(spec);
    }
    return {
      createdCollectionAutomatically: !existed,
      numIndexesBefore: before,
      numIndexesAfter: collection.indexes.length,
      ok: 1,
    };
  }

  private listIndexes(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.listIndexes, false);
    if (!collection)
      throw new CommandError(26, "NamespaceNotFound", `ns does not exist: ${db}.${String(cmd.listIndexes)}`);
    const docs = collection.indexes.map((i) => ({ v: 2, ...i }));
    return this.openCursor(
      `${db}.$cmd.listIndexes.${cmd.listIndexes}`,
      docs,
      batchSizeOf((cmd.cursor as Document | undefined)?.batchSize),
      false,
      "firstBatch",
    );
  }

  private dropIndexes(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.dropIndexes, false);
    if (!collection) throw new CommandError(26, "NamespaceNotFound", `ns not found: ${db}.${String(cmd.dropIndexes)}`);
    const before = collection.indexes.length;
    const names =
      cmd.index === "*" ? collection.indexes.filter((i) => i.name !== "_id_").map((i) => i.name) : [cmd.index].flat();
    for (const name of names) collection.dropIndex(String(name));
    return { nIndexesWas: before, ok: 1 };
  }

  private listCollections(db: string, cmd: Document): Document {
    const names = [...(this.catalog.databases.get(db)?.keys() ?? [])];
    const infos = names.map((name) => ({
      name,
      type: "collection",
      options: {},
      info: { readOnly: false },
      idIndex: { v: 2, key: { _id: 1 }, name: "_id_" },
    }));
    const filtered = hasKeys(cmd.filter) ? infos.filter((i) => new Query(cmd.filter as Document).test(i)) : infos;
    const docs = cmd.nameOnly ? filtered.map((i) => ({ name: i.name, type: i.type })) : filtered;
    return this.openCursor(
      `${db}.$cmd.listCollections`,
      docs,
      batchSizeOf((cmd.cursor as Document | undefined)?.batchSize),
      false,
      "firstBatch",
    );
  }

  private create(db: string, cmd: Document): Document {
    if (this.collection(db, cmd.create, false))
      throw new CommandError(48, "NamespaceExists", `Collection ${db}.${String(cmd.create)} already exists.`);
    this.collection(db, cmd.create, true);
    return { ok: 1 };
  }

  private drop(db: string, cmd: Document): Document {
    const collection = this.collection(db, cmd.drop, false);
    if (!collection) throw new CommandError(26, "NamespaceNotFound", "ns not found");
    this.catalog.databases.get(db)?.delete(String(cmd.drop));
    return { ns: collection.ns, nIndexesWas: collection.indexes.length, ok: 1 };
  }

  private configureFailPoint(cmd: Document): Document {
    if (cmd.configureFailPoint !== "failCommand")
      throw new CommandError(72, "InvalidOptions", `unknown fail point ${String(cmd.configureFailPoint)}`);
    if (cmd.mode === "off") {
      this.failPoint = undefined;
      return { count: 0, ok: 1 };
    }
    const mode = cmd.mode as Document | string | undefined;
    const times =
      typeof mode === "object" && mode !== null && typeof mode.times === "number"
        ? mode.times
        : mode === "alwaysOn"
          ? Number.POSITIVE_INFINITY
          : 1;
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
