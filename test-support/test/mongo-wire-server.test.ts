import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { connect } from "node:net";
import { deserialize, serialize } from "bson";
import { Long, MongoClient, MongoServerError, ObjectId, type Db } from "mongodb";
import { MongoWireServer } from "../src/mongo-wire-server/index.js";
import {
  decodeRequest,
  encodeMsgReply,
  MessageFramer,
  MsgFlag,
  OpCode,
} from "../src/mongo-wire-server/wire-protocol.js";

describe("MongoWireServer through the official driver", () => {
  let server: MongoWireServer;
  let client: MongoClient;
  let db: Db;

  beforeAll(async () => {
    server = await MongoWireServer.start();
    client = await MongoClient.connect(server.uri, { serverSelectionTimeoutMS: 3000 });
    db = client.db("wire_test");
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it("answers ping, buildInfo and hello", async () => {
    expect(await db.command({ ping: 1 })).toMatchObject({ ok: 1 });
    expect((await db.admin().buildInfo()).version).toBe("7.0.0");
    const hello = await db.admin().command({ hello: 1 });
    expect(hello).toMatchObject({ isWritablePrimary: true, maxWireVersion: 21 });
    expect(hello.topologyVersion).toBeUndefined();
  });

  it("inserts with generated ObjectIds and finds by _id, filter, sort, skip, limit and projection", async () => {
    const c = db.collection("people");
    const inserted = await c.insertMany([
      { name: "ada", age: 36, tags: ["math"] },
      { name: "bob", age: 25, tags: [] },
      { name: "cyd", age: 41, tags: ["math", "art"] },
    ]);
    expect(inserted.insertedCount).toBe(3);
    const firstId = inserted.insertedIds[0]!;
    expect(firstId).toBeInstanceOf(ObjectId);
    expect((await c.findOne({ _id: firstId }))?.name).toBe("ada");
    expect(
      (
        await c
          .find({ age: { $gt: 30 } })
          .sort({ age: -1 })
          .toArray()
      ).map((d) => d.name),
    ).toEqual(["cyd", "ada"]);
    expect((await c.find({}).sort({ name: 1 }).skip(1).limit(1).toArray()).map((d) => d.name)).toEqual(["bob"]);
    const projected = await c.findOne({ name: "cyd" }, { projection: { _id: 0, age: 1 } });
    expect(projected).toEqual({ age: 41 });
    expect(await c.countDocuments({ tags: "math" })).toBe(2);
    expect(await c.countDocuments({ tags: "none" })).toBe(0);
    expect(await c.estimatedDocumentCount()).toBe(3);
    expect((await c.distinct("name", { age: { $lt: 40 } })).sort()).toEqual(["ada", "bob"]);
  });

  it("round-trips BSON types: Date, Long, nested arrays, null, doubles", async () => {
    const c = db.collection("types");
    const when = new Date("2026-01-02T03:04:05.678Z");
    await c.insertOne({
      _id: "t" as never,
      when,
      big: Long.fromString("9007199254740993"),
      float: 1.5,
      nested: { list: [1, "a", null, { x: [] }] },
    });
    const doc = await c.findOne({ _id: "t" as never }, { promoteLongs: false });
    expect(doc?.when).toEqual(when);
    expect(String(doc?.big)).toBe("9007199254740993");
    expect(doc?.float).toBe(1.5);
    expect(doc?.nested).toEqual({ list: [1, "a", null, { x: [] }] });
  });

  it("updates with operators, replacement, pipelines and upserts", async () => {
    const c = db.collection<{ _id: string; n?: number; list?: number[]; name?: string; made?: boolean; k?: string }>(
      "updates",
    );
    await c.insertOne({ _id: "a", n: 1, list: [] });
    const r1 = await c.updateOne({ _id: "a" }, { $inc: { n: 2 }, $push: { list: 7 }, $set: { name: "x" } });
    expect(r1).toMatchObject({ matchedCount: 1, modifiedCount: 1 });
    expect(await c.findOne({ _id: "a" })).toEqual({ _id: "a", n: 3, list: [7], name: "x" });
    const r2 = await c.updateOne(
      { _id: "missing" },
      { $set: { n: 9 }, $setOnInsert: { made: true } },
      { upsert: true },
    );
    expect(r2).toMatchObject({ matchedCount: 0, upsertedCount: 1, upsertedId: "missing" });
    expect(await c.findOne({ _id: "missing" })).toEqual({ _id: "missing", n: 9, made: true });
    await c.updateOne({ _id: "missing" }, { $set: { n: 10 }, $setOnInsert: { made: false } }, { upsert: true });
    expect((await c.findOne({ _id: "missing" }))?.made).toBe(true);
    await c.replaceOne({ _id: "a" }, { name: "replaced" });
    expect(await c.findOne({ _id: "a" })).toEqual({ _id: "a", name: "replaced" });
    await c.updateOne({ _id: "a" }, [{ $set: { k: { $concat: ["$name", "!"] } } }]);
    expect((await c.findOne({ _id: "a" }))?.k).toBe("replaced!");
    const many = await c.updateMany({}, { $set: { touched: 1 } } as never);
    expect(many.matchedCount).toBe(2);
    await expect(c.updateOne({ _id: "a" }, { $bogus: { n: 1 } } as never)).rejects.toThrow(/Unknown modifier/);
  });

  it("findOneAndUpdate returns the document before or after, and upserts; findOneAndDelete removes", async () => {
    const c = db.collection<{ _id: string; v: number }>("fam");
    await c.insertOne({ _id: "x", v: 1 });
    expect(await c.findOneAndUpdate({ _id: "x", v: 1 }, { $set: { v: 2 } })).toEqual({ _id: "x", v: 1 });
    expect(await c.findOneAndUpdate({ _id: "x", v: 2 }, { $set: { v: 3 } }, { returnDocument: "after" })).toEqual({
      _id: "x",
      v: 3,
    });
    // A compare-and-set that lost: no document matches the expected value.
    expect(await c.findOneAndUpdate({ _id: "x", v: 2 }, { $set: { v: 4 } })).toBeNull();
    expect(
      await c.findOneAndUpdate({ _id: "y" }, { $set: { v: 5 } }, { upsert: true, returnDocument: "after" }),
    ).toEqual({ _id: "y", v: 5 });
    expect(await c.findOneAndDelete({ _id: "y" })).toEqual({ _id: "y", v: 5 });
    expect(await c.countDocuments()).toBe(1);
  });

  it("enforces unique indexes with error 11000 on insert, update and index creation", async () => {
    const c = db.collection("uniq");
    expect(await c.createIndex({ a: 1, b: 1 }, { unique: true, name: "a_b" })).toBe("a_b");
    await c.insertOne({ a: 1, b: 1 });
    const dup = await c.insertOne({ a: 1, b: 1 }).catch((e: unknown) => e);
    expect(dup).toBeInstanceOf(MongoServerError);
    expect(dup).toMatchObject({ code: 11000 });
    await c.insertOne({ a: 1, b: 2 });
    await expect(c.updateOne({ b: 2 }, { $set: { b: 1 } })).rejects.toMatchObject({ code: 11000 });
    expect(await c.countDocuments({ a: 1, b: 2 })).toBe(1);
    const bulk = await c
      .insertMany(
        [
          { a: 2, b: 1 },
          { a: 1, b: 1 },
          { a: 3, b: 1 },
        ],
        { ordered: false },
      )
      .catch((e: unknown) => e);
    expect(bulk).toMatchObject({ code: 11000 });
    expect(await c.countDocuments({ b: 1 })).toBe(3);
    // Documents missing every indexed field collide on null, as in MongoDB.
    await expect(c.insertOne({ z: 1 })).resolves.toBeDefined();
    await expect(c.insertOne({ z: 1 })).rejects.toMatchObject({ code: 11000 });
    const z = db.collection("uniq_z");
    await z.insertMany([{ z: 1 }, { z: 1 }, { other: true }, { other: true }]);
    await expect(z.createIndex({ z: 1 }, { unique: true, sparse: true })).rejects.toMatchObject({ code: 11000 });
    await z.deleteOne({ z: 1 });
    // Sparse: documents without the field are not indexed, so they do not collide.
    expect(await z.createIndex({ z: 1 }, { unique: true, sparse: true })).toBe("z_1");
    await expect(z.insertOne({ _id: (await z.findOne({ z: 1 }))!._id, q: 1 })).rejects.toMatchObject({ code: 11000 });
    // Partial: only documents matching the filter take part.
    const p = db.collection("uniq_partial");
    await p.createIndex({ k: 1 }, { unique: true, partialFilterExpression: { live: true } });
    await p.insertMany([
      { k: 1, live: false },
      { k: 1, live: false },
      { k: 1, live: true },
    ]);
    await expect(p.insertOne({ k: 1, live: true })).rejects.toMatchObject({ code: 11000 });
    const names = (await c.listIndexes().toArray()).map((i) => i.name);
    expect(names).toEqual(["_id_", "a_b"]);
    await expect(c.createIndex({ a: 1, b: 1 }, { unique: false, name: "a_b" })).rejects.toMatchObject({ code: 85 });
  });

  it("pages through getMore batches and kills cursors", async () => {
    const c = db.collection("many");
    await c.insertMany(Array.from({ length: 250 }, (_, i) => ({ i })));
    const all = await c.find({}, { batchSize: 50 }).sort({ i: 1 }).toArray();
    expect(all.map((d) => d.i)).toEqual(Array.from({ length: 250 }, (_, i) => i));
    const before = server.database.commandCounts.get("getMore") ?? 0;
    expect(before).toBeGreaterThanOrEqual(4);
    const cursor = c.find({}, { batchSize: 10 });
    await cursor.next();
    await cursor.close();
    expect(server.database.commandCounts.get("killCursors")).toBeGreaterThanOrEqual(1);
  });

  it("aggregates with $match, $group, $sort and $lookup", async () => {
    const orders = db.collection("orders");
    const items = db.collection("items");
    await items.insertMany([
      { _id: "p" as never, price: 2 },
      { _id: "q" as never, price: 5 },
    ]);
    await orders.insertMany([
      { item: "p", n: 1 },
      { item: "p", n: 3 },
      { item: "q", n: 2 },
    ]);
    const grouped = await orders
      .aggregate([{ $group: { _id: "$item", total: { $sum: "$n" } } }, { $sort: { _id: 1 } }])
      .toArray();
    expect(grouped).toEqual([
      { _id: "p", total: 4 },
      { _id: "q", total: 2 },
    ]);
    const joined = await orders
      .aggregate([
        { $match: { item: "q" } },
        { $lookup: { from: "items", localField: "item", foreignField: "_id", as: "it" } },
        { $project: { _id: 0, price: { $first: "$it.price" } } },
      ])
      .toArray();
    expect(joined).toEqual([{ price: 5 }]);
    await expect(orders.aggregate([{ $out: "x" }]).toArray()).rejects.toThrow(/not supported/);
  });

  it("deletes, lists and drops collections and databases", async () => {
    const c = db.collection("gone");
    await c.insertMany([{ k: 1 }, { k: 1 }, { k: 2 }]);
    expect((await c.deleteOne({ k: 1 })).deletedCount).toBe(1);
    expect((await c.deleteMany({ k: { $gte: 1 } })).deletedCount).toBe(2);
    expect((await db.listCollections({ name: "gone" }).toArray()).map((x) => x.name)).toEqual(["gone"]);
    expect(await c.drop()).toBe(true);
    expect(await db.listCollections({ name: "gone" }).toArray()).toEqual([]);
    const other = client.db("wire_other");
    await other.collection("x").insertOne({ a: 1 });
    await other.dropDatabase();
    expect(await other.listCollections().toArray()).toEqual([]);
  });

  it("answers unknown commands and transactions with MongoDB's errors", async () => {
    await expect(db.command({ frobnicate: 1 })).rejects.toMatchObject({ code: 59, codeName: "CommandNotFound" });
    // The driver itself refuses transactions on a standalone; a hand-made one meets the server's error.
    await expect(
      db.command({ find: "tx", txnNumber: Long.fromNumber(1), startTransaction: true, autocommit: false }),
    ).rejects.toMatchObject({ code: 20 });
    await expect(db.admin().command({ commitTransaction: 1 })).rejects.toMatchObject({ code: 20 });
  });

  it("accepts endSessions when a client closes", async () => {
    const before = server.database.commandCounts.get("endSessions") ?? 0;
    const other = await MongoClient.connect(server.uri);
    await other.db("wire_test").collection("people").findOne({});
    await other.close();
    // endSessions is unacknowledged (moreToCome): the client does not wait for the server.
    while ((server.database.commandCounts.get("endSessions") ?? 0) === before)
      await new Promise((r) => setTimeout(r, 10));
    expect(server.database.commandCounts.get("endSessions")).toBe(before + 1);
  });

  it("fails commands on demand through the failCommand fail point", async () => {
    await db.admin().command({
      configureFailPoint: "failCommand",
      mode: { times: 1 },
      data: { failCommands: ["insert"], errorCode: 91, errmsg: "shutting down" },
    });
    await expect(db.collection("fp").insertOne({ a: 1 })).rejects.toMatchObject({ code: 91 });
    await db.collection("fp").insertOne({ a: 2 });
    expect(await db.collection("fp").countDocuments()).toBe(1);
  });
});

describe("MongoWireServer wire protocol", () => {
  let server: MongoWireServer;
  beforeAll(async () => {
    server = await MongoWireServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  /**
   * Sends raw frames and collects the decoded replies: until `expectedReplies` arrived, or (with
   * 0) until the server closes the connection.
   */
  async function exchange(frames: Buffer[], expectedReplies: number): Promise<Record<string, unknown>[]> {
    const port = Number(new URL(server.uri).port);
    const socket = connect(port, "127.0.0.1");
    const framer = new MessageFramer();
    const replies: Record<string, unknown>[] = [];
    return new Promise((resolve, reject) => {
      socket.on("data", (chunk) => {
        for (const message of framer.push(chunk)) {
          const opCode = message.readInt32LE(12);
          replies.push(opCode === OpCode.REPLY ? deserialize(message.subarray(36)) : decodeRequest(message).command);
          if (replies.length === expectedReplies && expectedReplies > 0) {
            socket.destroy();
            resolve(replies);
          }
        }
      });
      socket.on("close", () => resolve(replies));
      socket.on("error", reject);
      socket.on("connect", () => {
        // Split the frames at an odd byte to exercise reassembly (the pause makes the server
        // read the head alone; any split reassembles to the same frames).
        const all = Buffer.concat(frames);
        socket.write(all.subarray(0, 7));
        setTimeout(() => socket.write(all.subarray(7)), 10);
      });
    });
  }

  function opMsg(
    requestId: number,
    flags: number,
    body: Record<string, unknown>,
    sequence?: { id: string; docs: Record<string, unknown>[] },
    checksum = false,
  ): Buffer {
    const parts: Buffer[] = [];
    const flagBuf = Buffer.alloc(4);
    flagBuf.writeUInt32LE(flags | (checksum ? MsgFlag.CHECKSUM_PRESENT : 0));
    parts.push(flagBuf, Buffer.from([0]), Buffer.from(serialize(body)));
    if (sequence) {
      const docs = Buffer.concat(sequence.docs.map((d) => Buffer.from(serialize(d))));
      const id = Buffer.from(`${sequence.id}\0`);
      const size = Buffer.alloc(4);
      size.writeInt32LE(4 + id.length + docs.length);
      parts.push(Buffer.from([1]), size, id, docs);
    }
    if (checksum) parts.push(Buffer.alloc(4));
    const payload = Buffer.concat(parts);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + payload.length, 0);
    header.writeInt32LE(requestId, 4);
    header.writeInt32LE(0, 8);
    header.writeInt32LE(OpCode.MSG, 12);
    return Buffer.concat([header, payload]);
  }

  function opQuery(requestId: number, collection: string, query: Record<string, unknown>): Buffer {
    const body = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from(`${collection}\0`),
      Buffer.alloc(8),
      Buffer.from(serialize(query)),
    ]);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + body.length, 0);
    header.writeInt32LE(requestId, 4);
    header.writeInt32LE(OpCode.QUERY, 12);
    return Buffer.concat([header, body]);
  }

  it("answers a legacy OP_QUERY isMaster with an OP_REPLY", async () => {
    const [reply] = await exchange([opQuery(1, "admin.$cmd", { $query: { isMaster: 1, helloOk: true } })], 1);
    expect(reply).toMatchObject({ ismaster: true, helloOk: true, ok: 1 });
  });

  it("folds kind-1 document sequences into the command, honours checksums and stays silent on moreToCome", async () => {
    const insert = opMsg(
      2,
      MsgFlag.MORE_TO_COME,
      { insert: "raw", $db: "rawdb" },
      { id: "documents", docs: [{ _id: 1 }, { _id: 2 }] },
    );
    const count = opMsg(3, 0, { count: "raw", $db: "rawdb" }, undefined, true);
    const replies = await exchange([insert, count], 1);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ n: 2, ok: 1 });
  });

  it("closes the connection on a malformed frame", async () => {
    const bad = Buffer.alloc(16);
    bad.writeInt32LE(16, 0);
    bad.writeInt32LE(9999, 12);
    expect(await exchange([bad], 0)).toEqual([]);
    expect(encodeMsgReply(1, 2, { ok: 1 }).readInt32LE(12)).toBe(OpCode.MSG);
  });
});
