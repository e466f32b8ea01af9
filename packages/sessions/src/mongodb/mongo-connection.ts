import { ConfigurationError, SessionError } from "@agentkit/core";
import { MongoClient, MongoServerError, type Db, type MongoClientOptions } from "mongodb";

/** How a Mongo-backed service reaches its database: a URI it connects itself, or a client it borrows. */
export type MongoConnectionOptions =
  | {
      /** `mongodb://…` or `mongodb+srv://…`; the service creates, connects and closes its own client. */
      uri: string;
      /** Database name (default: the URI's path, else "agentkit"). */
      dbName?: string;
      /** Extra driver options for the client the service creates. */
      clientOptions?: MongoClientOptions;
    }
  | {
      /** A client owned by the caller: the service never closes it. */
      client: MongoClient;
      dbName?: string;
    };

export const DEFAULT_DB_NAME = "agentkit";

/** The database name in a MongoDB URI's path, if any. */
export function dbNameFromUri(uri: string): string | undefined {
  const match = /^mongodb(?:\+srv)?:\/\/[^/?]*\/([^?]+)/.exec(uri);
  const name = match?.[1] ? decodeURIComponent(match[1]) : "";
  return name === "" ? undefined : name;
}

/** True for MongoDB's duplicate-key error (a unique index refused the write). */
export function isDuplicateKeyError(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}

/** Wraps a driver failure (network, server selection, server error) in a SessionError with a cause. */
export function storeError(action: string, error: unknown): SessionError {
  const detail = error instanceof Error ? error.message : String(error);
  return new SessionError(`MongoDB ${action} failed: ${detail}`, { code: "SESSION_STORE_ERROR", cause: error });
}

/**
 * A lazily opened database handle shared by the Mongo services: the first operation connects
 * (when the service owns the client) and runs `prepare` (schema migrations, indexes) once.
 */
export class MongoHandle {
  private readonly client: MongoClient;
  private readonly owned: boolean;
  private readonly dbName: string;
  private opening: Promise<Db> | undefined;
  private closed = false;

  constructor(
    options: MongoConnectionOptions,
    private readonly what: string,
    private readonly prepare: (db: Db) => Promise<void>,
  ) {
    if ("client" in options && options.client) {
      if (!(options.client instanceof MongoClient))
        throw new ConfigurationError(`${what}: "client" must be a MongoClient from the mongodb package`);
      this.client = options.client;
      this.owned = false;
      this.dbName = options.dbName ?? DEFAULT_DB_NAME;
    } else {
      const uri = (options as { uri?: unknown }).uri;
      if (typeof uri !== "string" || !/^mongodb(\+srv)?:\/\//.test(uri)) {
        throw new ConfigurationError(
          `${what} needs { uri: "mongodb://host:port/db" } or { client, dbName }; got ${JSON.stringify(uri)}`,
        );
      }
      const clientOptions = "clientOptions" in options ? options.clientOptions : undefined;
      try {
        // 10 s to find a server unless the URI (or clientOptions) says otherwise: explicit driver
        // options would override the URI's own `serverSelectionTimeoutMS`.
        const defaults = /[?&]serverSelectionTimeoutMS=/i.test(uri) ? {} : { serverSelectionTimeoutMS: 10_000 };
        this.client = new MongoClient(uri, { ...defaults, ...clientOptions });
      } catch (error) {
        throw new ConfigurationError(
          `${what}: invalid MongoDB URI: ${error instanceof Error ? error.message : String(error)}`,
          { cause: error },
        );
      }
      this.owned = true;
      this.dbName = options.dbName ?? dbNameFromUri(uri) ?? DEFAULT_DB_NAME;
    }
  }

  /** The prepared database; connects and migrates on first use. */
  db(): Promise<Db> {
    if (this.closed)
      return Promise.reject(new SessionError(`${this.what} is closed`, { code: "SESSION_SERVICE_CLOSED" }));
    if (!this.opening) {
      const opening = (async () => {
        if (this.owned) await this.client.connect();
        const db = this.client.db(this.dbName);
        await this.prepare(db);
        return db;
      })();
      // A failed start (server down, newer schema) is retried by the next call, not cached.
      this.opening = opening.catch((error: unknown) => {
        this.opening = undefined;
        if (error instanceof SessionError || error instanceof ConfigurationError) throw error;
        throw storeError(`start of ${this.what} (database "${this.dbName}")`, error);
      });
    }
    return this.opening;
  }

  /** Closes the client if this handle created it; a borrowed client stays open. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const opening = this.opening;
    this.opening = undefined;
    // Close first: a connect still waiting for server selection (an unreachable host) is
    // cut short instead of holding close() for the whole selection timeout.
    if (this.owned) await this.client.close();
    if (opening) await opening.catch(() => undefined);
  }
}
