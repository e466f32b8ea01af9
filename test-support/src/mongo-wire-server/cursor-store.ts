import { Long, type Document } from "bson";
import { cloneDocument, CommandError } from "./in-memory-collection.js";
import { batchSizeOf } from "./document-helpers.js";

interface OpenCursor {
  ns: string;
  docs: Document[];
  position: number;
}

/** Open cursors: the first batch of a result goes out at once, the rest through getMore. */
export class CursorStore {
  private readonly cursors = new Map<number, OpenCursor>();
  private nextCursorId = 1;

  /** The reply carrying the first batch; keeps a cursor open when more documents remain. */
  open(
    ns: string,
    docs: Document[],
    batchSize: number,
    singleBatch: boolean,
    field: "firstBatch" | "nextBatch",
  ): Document {
    const batch = docs.slice(0, batchSize).map(cloneDocument);
    let id = 0;
    if (!singleBatch && docs.length > batchSize) {
      id = this.nextCursorId++;
      this.cursors.set(id, { ns, docs, position: batchSize });
    }
    return { cursor: { [field]: batch, id: Long.fromNumber(id), ns }, ok: 1 };
  }

  getMore(cmd: Document): Document {
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

  kill(cmd: Document): Document {
    const ids = ((cmd.cursors as unknown[] | undefined) ?? []).map((c) => Number(c));
    const killed = ids.filter((id) => this.cursors.delete(id));
    const notFound = ids.filter((id) => !killed.includes(id));
    return {
      cursorsKilled: killed.map((id) => Long.fromNumber(id)),
      cursorsNotFound: notFound.map((id) => Long.fromNumber(id)),
      cursorsAlive: [],
      cursorsUnknown: [],
      ok: 1,
    };
  }
}
