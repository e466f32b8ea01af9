import { createHash } from "node:crypto";
import { Pool, type PoolClient, type PoolConfig } from "pg";
import {
  ConfigurationError,
  RunAbortedError,
  SessionBusyError,
  type ReleaseSessionLock,
  type SessionLockKey,
  type SessionLock,
  type SessionLockOptions,
} from "@agentkit/core";
import { SessionQueueKey } from "@agentkit/core/internal";
import { SessionStoreError } from "../sql/session-store-error.js";

export type PostgresSessionLockOptions = {
  /** The session store's database (any database all replicas share works). */
  connectionString: string;
  /**
   * Settings of the lock's own pool. A held lock holds one connection for the whole run, so
   * `max` (default 32) bounds the sessions this process runs at once; runs past it wait for a
   * connection up to their `waitMs`.
   */
  poolConfig?: Omit<PoolConfig, "connectionString">;
};

// lock_not_available: the wait passed `lock_timeout`; query_canceled: pg_cancel_backend.
const LOCK_NOT_AVAILABLE = "55P03";
const QUERY_CANCELED = "57014";

/**
 * The session lock of replicas on one PostgreSQL database: a session-level advisory lock
 * (`pg_advisory_lock`) on a 64-bit hash of the session key, held on a connection of its own pool
 * for the run's duration and bounded by `lock_timeout`. A process that dies drops its
 * connection, and PostgreSQL releases its locks with it. Its own pool: a run holding a lock
 * still needs the session store's connections.
 */
export class PostgresSessionLock implements SessionLock {
  private readonly pool: Pool;
  /** Connections holding a lock, each with how to drop it (close ends their locks). */
  private readonly held = new Map<PoolClient, () => void>();

  constructor(options: PostgresSessionLockOptions) {
    if (typeof options?.connectionString !== "string" || options.connectionString === "") {
      throw new ConfigurationError("PostgresSessionLock needs { connectionString } (postgres://user:pass@host/db).");
    }
    this.pool = new Pool({
      max: 32,
      connectionTimeoutMillis: 10_000,
      ...options.poolConfig,
      connectionString: options.connectionString,
    });
    // A held connection that breaks must not crash the process (its lock is gone with it).
    this.pool.on("error", () => undefined);
  }

  async acquire(key: SessionLockKey, { waitMs, signal }: SessionLockOptions): Promise<ReleaseSessionLock> {
    if (!Number.isSafeInteger(waitMs) || waitMs < 1) {
      throw new ConfigurationError(`PostgresSessionLock: waitMs must be a positive integer, got ${waitMs}.`);
    }
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    const started = performance.now();
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (cause) {
      throw new SessionStoreError(
        "SESSION_STORE_UNAVAILABLE",
        `Cannot connect for the session lock: ${message(cause)}`,
        {
          cause,
        },
      );
    }
    // A held connection that breaks (the server restarted, a network cut) loses its lock; the
    // error must not crash the process. The store's own checks (row lock, stale-session
    // detection) still guard the run's writes then.
    const onBroken = () => undefined;
    client.on("error", onBroken);
    if (signal?.aborted) {
      client.removeListener("error", onBroken);
      client.release();
      throw new RunAbortedError({ cause: signal.reason });
    }
    // Aborting cancels the wait in the server (dropping the socket would not: a backend waiting
    // for a lock does not notice its client left, and would take the lock later).
    // The connection goes back to the pool only once the cancel is done, so a late cancel never
    // hits another wait on it.
    let aborted = false;
    let cancelled: Promise<unknown> = Promise.resolve();
    const onAbort = () => {
      aborted = true;
      cancelled = this.pool.query("SELECT pg_cancel_backend($1)", [processIdOf(client)]).catch(() => undefined);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    const id = lockId(key);
    try {
      const left = Math.max(1, Math.round(waitMs - (performance.now() - started)));
      await client.query("SELECT set_config('lock_timeout', $1, false)", [`${left}ms`]);
      await client.query("SELECT pg_advisory_lock($1::bigint)", [id]);
    } catch (error) {
      signal?.removeEventListener("abort", onAbort);
      client.removeListener("error", onBroken);
      await cancelled;
      const code = (error as { code?: unknown }).code;
      if (code === LOCK_NOT_AVAILABLE || (aborted && code === QUERY_CANCELED)) {
        client.release();
        if (aborted) throw new RunAbortedError({ cause: signal?.reason });
        throw new SessionBusyError(key.sessionId, waitMs);
      }
      client.release(error as Error);
      if (aborted) throw new RunAbortedError({ cause: signal?.reason });
      throw new SessionStoreError("SESSION_STORE_UNAVAILABLE", `The session lock failed: ${message(error)}`, {
        cause: error,
      });
    }
    signal?.removeEventListener("abort", onAbort);
    this.held.set(client, () => client.release(new Error("The session lock was closed.")));
    let released: Promise<void> | undefined;
    const release = () => {
      if (!this.held.delete(client)) return (released ??= Promise.resolve());
      released ??= client.query("SELECT pg_advisory_unlock($1::bigint)", [id]).then(
        () => {
          client.removeListener("error", onBroken);
          client.release();
        },
        // A connection that cannot unlock is dropped, which unlocks.
        (error: Error) => {
          client.removeListener("error", onBroken);
          client.release(error);
        },
      );
      return released;
    };
    // Aborted just as the lock was granted (the cancel came too late): give it back.
    if (aborted) {
      await cancelled;
      await release();
      throw new RunAbortedError({ cause: signal?.reason });
    }
    return release;
  }

  async close(): Promise<void> {
    for (const drop of this.held.values()) drop();
    this.held.clear();
    await this.pool.end();
  }
}

/** A signed 64-bit id from the session key (PostgreSQL's bigint), as text. */
function lockId(key: SessionLockKey): string {
  const digest = createHash("sha256")
    .update(`agentkit-session:${SessionQueueKey.of(key)}`)
    .digest();
  return digest.readBigInt64BE(0).toString();
}

/** The server process id of a pool client (for `pg_cancel_backend`). */
function processIdOf(client: PoolClient): number {
  return (client as unknown as { processID: number }).processID;
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
