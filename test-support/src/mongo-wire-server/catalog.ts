import type { Document } from "bson";
import { Query } from "mingo";
import { CommandError, InMemoryCollection } from "./in-memory-collection.js";
import { hasKeys } from "./document-helpers.js";

/** The test server's databases and their collections, by name. */
export class Catalog {
  readonly databases = new Map<string, Map<string, InMemoryCollection>>();

  /** The named collection, created (with its database) when `create` is set. */
  collection(db: string, name: unknown, create: boolean): InMemoryCollection | undefined {
    if (typeof name !== "string" || name === "")
      throw new CommandError(73, "InvalidNamespace", `invalid collection name: ${String(name)}`);
    let database = this.databases.get(db);
    if (!database) {
      if (!create) return undefined;
      this.databases.set(db, (database = new Map()));
    }
    let collection = database.get(name);
    if (!collection && create) database.set(name, (collection = new InMemoryCollection(`${db}.${name}`)));
    return collection;
  }

  /** The documents of a collection (none if it does not exist) that match a query filter. */
  matching(collection: InMemoryCollection | undefined, filter: unknown): Document[] {
    if (!collection) return [];
    const query = new Query(hasKeys(filter) ? filter : {});
    return collection.docs.filter((doc) => query.test(doc));
  }
}
