import { ConfigurationError, SessionError } from "@agentkit/core";
import { MongoClient, MongoNetworkTimeoutError, MongoServerError, type Db, type MongoClientOptions } from "mongodb";

/** How a Mongo-backed service reaches its database: a URI it connects itself, or a client it borrows. */
export type MongoConnectionOptions =
  | {
      /** `mongodb://…` or `mongodb+srv://…`; the service creates, connects and closes its own client. */
      uri: string;
      /** Database name (default: the URI's path, else "agentkit"). */
      dbName?: string;
      /**
       * Extra driver options for the client the service creates, over its defaults (which the
       * URI's own query parameters also override): `serverSelectionTimeoutMS` 10 s to find a
       * server, `socketTimeoutMS` 30 s for the server to answer an operation (`0` waits forever).
       */
      clientOptions?: MongoClientOptions;
    }
  | {
      /** A client owned by the caller: the service never closes it. */
      client: MongoClient;
      dbName?: string;
    };

export const DEFAULT_DB_NAME = "agentkit";

/**
 * Driver options of a client a service creates itself (never applied to a borrowed client), each
 * unless the URI or `clientOptions` sets it. `socketTimeoutMS` bounds how long an operation waits
 * for the server's answer once sent: without it (the driver's default is 0, no limit) an
 * operation on a server that stops answering (a hung process, a silent network) waits forever,
 * and so does the run that called it. On expiry the driver closes that connection (it is never
 * reused) and fails the operation with `MongoNetworkTimeoutError`; it retries a read once on
 * another connection. The client-side `timeoutMS` would be the finer tool, but the `mongodb` 7
 * driver ignores it (deprecated, no effect), and `maxTimeMS` is enforced by the server, so it
 * cannot help when the server is the part that hangs. No operation of these services waits on
 * the server on purpose: MongoSessionLock polls with short updates between client-side pauses.
 */
export const OWN_CLIENT_DEFAULTS = {
  serverSelectionTimeoutMS: 10_000,
  socketTimeoutMS: 30_000,
} as const satisfies MongoClientOptions;

/** True when the URI's query string sets `option` (option names are case-insensitive). */
function uriSets(uri: string, option: string): boolean {
  return new RegExp(`[?&]${option}=`, "i").test(uri);
}

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

/**
 * Wraps a driver failure (network, server selection, server error) in a SessionError with a
 * cause; a server that did not answer in time (`socketTimeoutMS`, or `connectTimeoutMS` for a new
 * connection's handshake) is named as a timeout.
 */
export function storeError(action: string, error: unknown): SessionError {
  const detail = error instanceof Error ? error.message : String(error);
  const message =
    error instanceof MongoNetworkTimeoutError
      ? `MongoDB ${action} timed out: the server did not answer in time (${detail})`
      : `MongoDB ${action} failed: ${detail}`;
  return new SessionError(message, { code: "SESSION_STORE_ERROR", cause: error });
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
        // A default only where the URI is silent: explicit driver options would override the
        // URI's own value. clientOptions override both.
        const defaults = Object.fromEntries(
          Object.entries(OWN_CLIENT_DEFAULTS).filter(([option]) => !uriSets(uri, option)),
        ) as MongoClientOptions;
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
