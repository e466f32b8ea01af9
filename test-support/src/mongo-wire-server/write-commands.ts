import type { Document } from "bson";
import { aggregate, find, update as applyUpdate } from "mingo";
import type { Catalog } from "./catalog.js";
import { hasKeys, isOperatorUpdate, upsertSeed } from "./document-helpers.js";
import { cloneDocument, CommandError, type InMemoryCollection } from "./in-memory-collection.js";

/** The write commands of the test server: insert, update (with upsert), delete and findAndModify. */
export class WriteCommands {
  constructor(private readonly catalog: Catalog) {}

  insert(db: string, cmd: Document): Document {
    const collection = this.catalog.collection(db, cmd.insert, true)!;
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
        if (
          ![
            "$set",
            "$unset",
            "$inc",
            "$mul",
            "$min",
            "$max",
            "$push",
            "$pull",
            "$pullAll",
            "$pop",
            "$addToSet",
            "$rename",
            "$currentDate",
            "$bit",
          ].includes(op)
        ) {
          throw new CommandError(9, "FailedToParse", `Unknown modifier: ${op}`);
        }
      }
      if (Object.keys(operators).length > 0) applyUpdate(next, operators, arrayFilters);
      if (inserting && hasKeys($setOnInsert)) applyUpdate(next, { $set: $setOnInsert });
      return next;
    }
    if (typeof u !== "object" || u === null)
      throw new CommandError(9, "FailedToParse", "update must be a document or a pipeline");
    return { ...cloneDocument(u as Document), _id: doc._id };
  }

  /** Updates the first (or every) match, or upserts; returns what happened. */
  private updateOne(
    collection: InMemoryCollection,
    spec: { q: Document; u: unknown; upsert?: boolean; multi?: boolean; arrayFilters?: Document[]; sort?: Document },
  ): { matched: number; modified: number; upsertedId?: unknown; before?: Document; after?: Document } {
    let targets = this.catalog.matching(collection, spec.q);
    if (hasKeys(spec.sort) && targets.length > 1)
      targets = find(targets, {})
        .sort(spec.sort as Record<string, 1 | -1>)
        .all() as Document[];
    if (!spec.multi) targets = targets.slice(0, 1);
    if (targets.length === 0) {
      if (!spec.upsert) return { matched: 0, modified: 0 };
      const seed = upsertSeed(spec.q);
      const created =
        isOperatorUpdate(spec.u) || Array.isArray(spec.u)
          ? this.updated(seed, spec.u, spec.arrayFilters, true)
          : { ...(spec.u as Document), ...(seed._id !== undefined ? { _id: seed._id } : {}) };
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

  update(db: string, cmd: Document): Document {
    const collection = this.catalog.collection(db, cmd.update, true)!;
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
    return {
      n,
      nModified,
      ...(upserted.length ? { upserted } : {}),
      ...(writeErrors.length ? { writeErrors } : {}),
      ok: 1,
    };
  }

  delete(db: string, cmd: Document): Document {
    const collection = this.catalog.collection(db, cmd.delete, false);
    let n = 0;
    for (const spec of (cmd.deletes as Document[] | undefined) ?? []) {
      const matches = this.catalog.matching(collection, spec.q);
      const victims = spec.limit === 1 ? matches.slice(0, 1) : matches;
      for (const doc of victims) collection?.remove(doc);
      n += victims.length;
    }
    return { n, ok: 1 };
  }

  findAndModify(db: string, cmd: Document): Document {
    const collection = this.catalog.collection(db, cmd.findAndModify, true)!;
    const query = (cmd.query as Document | undefined) ?? {};
    const project = (doc: Document | undefined) => {
      if (!doc) return null;
      const copy = cloneDocument(doc);
      return hasKeys(cmd.fields)
        ? ((find([copy], {}, cmd.fields as Document).all()[0] as Document | undefined) ?? null)
        : copy;
    };
    if (cmd.remove) {
      let matches = this.catalog.matching(collection, query);
      if (hasKeys(cmd.sort))
        matches = find(matches, {})
          .sort(cmd.sort as Record<string, 1 | -1>)
          .all() as Document[];
      const victim = matches[0];
      if (victim) collection.remove(victim);
      return { lastErrorObject: { n: victim ? 1 : 0 }, value: project(victim), ok: 1 };
    }
    if (cmd.update === undefined)
      throw new CommandError(9, "FailedToParse", "Either an update or remove=true must be specified");
    const result = this.updateOne(collection, {
      q: query,
      u: cmd.update,
      upsert: cmd.upsert === true,
      arrayFilters: cmd.arrayFilters as Document[] | undefined,
      sort: cmd.sort as Document | undefined,
    });
    const lastErrorObject: Document = {
      n: result.matched || (result.upsertedId !== undefined ? 1 : 0),
      updatedExisting: result.matched > 0,
    };
    if (result.upsertedId !== undefined) lastErrorObject.upserted = result.upsertedId;
    const value = cmd.new ? project(result.after) : project(result.before);
    return { lastErrorObject, value, ok: 1 };
  }
}
