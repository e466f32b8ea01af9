import { createHash } from "node:crypto";
import { Client, Pool, type PoolClient, type PoolConfig } from "pg";
import {
  ConfigurationError,
  RunAbortedError,
  SessionBusyError,
  type ReleaseSessionLock,
  type SessionLockKey,
  type SessionLock,
  type SessionLockOptions,
} from "@agentkit/core";
import { OWN_POSTGRES_POOL_DEFAULTS, SessionQueueKey, settlesWithin } from "@agentkit/core/internal";
import { SessionStoreError } from "../sql/session-store-error.js";

export type PostgresSessionLockOptions = {
  /** The session store's database (any database all replicas share works). */
  connectionString: string;
  /**
   * Settings of the lock's own pool. A held lock holds one connection for the whole run, so
   * `max` (default 32) bounds the sessions this process runs at once; runs past it wait for a
   * connection up to their `waitMs` (then `SessionBusyError`), and stop waiting when their signal
   * aborts. Defaults: `connectionTimeoutMillis` 10 s (opening a connection; past it the store is
   * unavailable), TCP keepalive from 10 s of silence (`keepAlive`, `keepAliveInitialDelayMillis`).
   */
  poolConfig?: Omit<PoolConfig, "connectionString">;
};

// lock_not_available: the wait passed `lock_timeout`; query_canceled: pg_cancel_backend.
const LOCK_NOT_AVAILABLE = "55P03";
const QUERY_CANCELED = "57014";
/** How long cancelling an aborted wait may take; past it the wait's connection is dropped instead. */
const CANCEL_TIMEOUT_MS = 5000;

/** An acquire waiting for one of the pool's connections. */
interface Waiter {
  grant(): void;
  fail(error: Error): void;
}

/**
 * The session lock of replicas on one PostgreSQL database: a session-level advisory lock
 * (`pg_advisory_lock`) on a 64-bit hash of the session key, held on a connection of its own pool
 * for the run's duration and bounded by `lock_timeout`. A process that dies drops its
 * connection, and PostgreSQL releases its locks with it. Its own pool: a run holding a lock
 * still needs the session store's connections.
 *
 * The lock hands out the pool's connections itself, first come first served: an acquire waits
 * for a free one within its `waitMs` and its signal, not within the pool's own queue (which
 * would ignore both and answer after `connectionTimeoutMillis` with a connection error).
 */
export class PostgresSessionLock implements SessionLock {
  private readonly pool: Pool;
  /** Connections holding a lock, each with how to drop it (close ends their locks). */
  private readonly held = new Map<PoolClient, () => void>();
  /** Connections the lock may have out at once (the pool's `max`). */
  private readonly slots: number;
  /** Connections out: held, being opened, or waiting for their lock. */
  private taken = 0;
  /** Acquires waiting for a connection, in arrival order. */
  private readonly waiting = new Set<Waiter>();
  private closed = false;

  constructor(options: PostgresSessionLockOptions) {
    if (typeof options?.connectionString !== "string" || options.connectionString === "") {
      throw new ConfigurationError("PostgresSessionLock needs { connectionString } (postgres://user:pass@host/db).");
    }
    this.pool = new Pool({
      max: 32,
      ...OWN_POSTGRES_POOL_DEFAULTS,
      ...options.poolConfig,
      connectionString: options.connectionString,
    });
    this.slots = this.pool.options.max ?? 32;
    // A held connection that breaks must not crash the process (its lock is gone with it).
    this.pool.on("error", () => undefined);
  }

  async acquire(key: SessionLockKey, { waitMs, signal }: SessionLockOptions): Promise<ReleaseSessionLock> {
    if (!Number.isSafeInteger(waitMs) || waitMs < 1) {
      throw new ConfigurationError(`PostgresSessionLock: waitMs must be a positive integer, got ${waitMs}.`);
    }
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    const started = performance.now();
    await this.slot(key, waitMs, signal);
    const client = await this.connect(signal);
    // A held connection that breaks (the server restarted, a network cut) loses its lock; the
    // error must not crash the process. The store's own checks (row lock, stale-session
    // detection) still guard the run's writes then.
    const onBroken = () => undefined;
    client.on("error", onBroken);
    if (signal?.aborted) {
      client.removeListener("error", onBroken);
      this.giveBack(client);
      throw new RunAbortedError({ cause: signal.reason });
    }
    // Aborting cancels the wait in the server (dropping the socket would not: a backend waiting
    // for a lock does not notice its client left, and would take the lock later).
    // The connection goes back to the pool only once the cancel is done, so a late cancel never
    // hits another wait on it. A cancel that fails closes the connection instead, so the acquire
    // still ends at once; its backend waits on (at most until lock_timeout), then sees its client
    // gone and exits, its lock with it.
    let aborted = false;
    let cancelled: Promise<Error | undefined> = Promise.resolve(undefined);
    const onAbort = () => {
      aborted = true;
      cancelled = this.cancelWait(client).then(
        () => undefined,
        (error: Error) => {
          client.end().catch(() => undefined);
          return error;
        },
      );
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
      const cancelFailed = await cancelled;
      if (cancelFailed) {
        this.giveBack(client, cancelFailed);
        throw new RunAbortedError({ cause: signal?.reason });
      }
      const code = (error as { code?: unknown }).code;
      if (code === LOCK_NOT_AVAILABLE || (aborted && code === QUERY_CANCELED)) {
        this.giveBack(client);
        if (aborted) throw new RunAbortedError({ cause: signal?.reason });
        throw new SessionBusyError(key.sessionId, waitMs);
      }
      this.giveBack(client, error as Error);
      if (aborted) throw new RunAbortedError({ cause: signal?.reason });
      throw new SessionStoreError("SESSION_STORE_UNAVAILABLE", `The session lock failed: ${message(error)}`, {
        cause: error,
      });
    }
    signal?.removeEventListener("abort", onAbort);
    this.held.set(client, () => this.giveBack(client, new Error("The session lock was closed.")));
    let released: Promise<void> | undefined;
    const release = () => {
      if (!this.held.delete(client)) return (released ??= Promise.resolve());
      released ??= client.query("SELECT pg_advisory_unlock($1::bigint)", [id]).then(
        () => {
          client.removeListener("error", onBroken);
          this.giveBack(client);
        },
        // A connection that cannot unlock is dropped, which unlocks.
        (error: Error) => {
          client.removeListener("error", onBroken);
          this.giveBack(client, error);
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
    if (this.closed) return;
    this.closed = true;
    const waiting = [...this.waiting];
    this.waiting.clear();
    for (const waiter of waiting)
      waiter.fail(new SessionStoreError("SESSION_STORE_UNAVAILABLE", "The session lock was closed."));
    for (const drop of this.held.values()) drop();
    this.held.clear();
    await this.pool.end();
  }

  /**
   * Cancels the statement of `client` with `pg_cancel_backend` on a short-lived connection of its
   * own: every connection of the pool may be out (held or waiting), and the abort must not wait
   * for one. Bounded by CANCEL_TIMEOUT_MS, so an unreachable server cannot hold up the abort.
   */
  private async cancelWait(client: PoolClient): Promise<void> {
    const options = this.pool.options;
    // The pool's settings (its password is not enumerable), and a connect bounded by the deadline
    // too, so no socket outlives it.
    const canceller = new Client({
      ...options,
      password: options.password,
      connectionTimeoutMillis: CANCEL_TIMEOUT_MS,
    });
    canceller.on("error", () => undefined);
    const cancel = canceller
      .connect()
      .then(() => canceller.query("SELECT pg_cancel_backend($1)", [processIdOf(client)]));
    try {
      if (!(await settlesWithin(cancel, CANCEL_TIMEOUT_MS)))
        throw new Error(`Cancelling the lock wait took over ${CANCEL_TIMEOUT_MS} ms.`);
      await cancel;
    } finally {
      // Closes at once, a query still out included.
      canceller.end().catch(() => undefined);
    }
  }

  /**
   * Takes one of the lock's connections: at once when one is free and nobody waits, else after
   * the acquires before it. `SessionBusyError` when none frees up within `waitMs` (every
   * connection holds a running session), `RunAbortedError` when `signal` aborts first.
   */
  private slot(key: SessionLockKey, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
    if (this.closed)
      return Promise.reject(new SessionStoreError("SESSION_STORE_UNAVAILABLE", "The session lock was closed."));
    if (this.taken < this.slots && this.waiting.size === 0) {
      this.taken++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const leave = () => {
        this.waiting.delete(waiter);
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      const waiter: Waiter = {
        grant: () => {
          leave();
          this.taken++;
          resolve();
        },
        fail: (error) => {
          leave();
          reject(error);
        },
      };
      const timer = setTimeout(() => waiter.fail(new SessionBusyError(key.sessionId, waitMs)), waitMs);
      const onAbort = () => waiter.fail(new RunAbortedError({ cause: signal?.reason }));
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiting.add(waiter);
    });
  }

  /**
   * A connection for the slot just taken. Opening one is bounded by the pool's
   * `connectionTimeoutMillis` (a store error past it) and by `signal`: an acquire aborted
   * meanwhile rejects at once, and the connection that comes later goes straight back (its slot
   * with it). On any failure the slot is given back.
   */
  private connect(signal: AbortSignal | undefined): Promise<PoolClient> {
    if (signal?.aborted) {
      this.freeSlot();
      return Promise.reject(new RunAbortedError({ cause: signal.reason }));
    }
    return new Promise<PoolClient>((resolve, reject) => {
      let gaveUp = false;
      const onAbort = () => {
        gaveUp = true;
        reject(new RunAbortedError({ cause: signal?.reason }));
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pool.connect().then(
        (client) => {
          signal?.removeEventListener("abort", onAbort);
          if (gaveUp) this.giveBack(client);
          else resolve(client);
        },
        (cause: unknown) => {
          signal?.removeEventListener("abort", onAbort);
          this.freeSlot();
          if (gaveUp) return;
          const detail = `Cannot connect for the session lock: ${message(cause)}`;
          reject(new SessionStoreError("SESSION_STORE_UNAVAILABLE", detail, { cause }));
        },
      );
    });
  }

  /** Returns a connection to the pool (dropped with `error`) and its slot to the next waiting acquire. */
  private giveBack(client: PoolClient, error?: Error): void {
    client.release(error);
    this.freeSlot();
  }

  private freeSlot(): void {
    this.taken--;
    const next = this.waiting.values().next();
    if (!next.done) next.value.grant();
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
