import { randomUUID } from "node:crypto";
import {
  ConfigurationError,
  RunAbortedError,
  SessionBusyError,
  type ReleaseSessionLock,
  type SessionLock,
  type SessionLockKey,
  type SessionLockOptions,
} from "@agentkit/core";
import { SessionQueueKey } from "@agentkit/core/internal";
import { isDuplicateKeyError, MongoHandle, storeError, type MongoConnectionOptions } from "./mongo-connection.js";

export type MongoSessionLockOptions = MongoConnectionOptions & {
  /**
   * How long a lease lasts without renewal (default 30000 ms). The holder renews it every third
   * of that while the run lasts; a replica that dies leaves its leases to expire after it.
   */
  leaseMs?: number;
};

/** One document per locked session: `_id` the session key, `owner` the holder's token. */
export const SESSION_LOCK_COLLECTION = "session-locks";

interface LeaseDocument {
  _id: string;
  owner: string;
  expiresAt: Date;
}

// Back-off between attempts while another replica holds the lease (MongoDB has no blocking lock).
const FIRST_RETRY_MS = 5;
const MAX_RETRY_MS = 200;

/**
 * The session lock of replicas on one MongoDB database: a lease document per session, taken
 * with an upsert that only matches an expired lease (a held one makes the insert fail on
 * `_id`), renewed while held, deleted on release. Waiting polls with back-off up to `waitMs`.
 * Lease times come from the replicas' clocks: keep them in sync (NTP) well within `leaseMs`.
 */
export class MongoSessionLock implements SessionLock {
  private readonly handle: MongoHandle;
  private readonly leaseMs: number;
  /** Held leases: their renewal timers and how to give them back. */
  private readonly held = new Map<string, { timer: NodeJS.Timeout; release: ReleaseSessionLock }>();

  constructor(options: MongoSessionLockOptions) {
    this.leaseMs = options.leaseMs ?? 30_000;
    if (!Number.isSafeInteger(this.leaseMs) || this.leaseMs < 100) {
      throw new ConfigurationError(
        `MongoSessionLock: leaseMs must be an integer of at least 100, got ${options.leaseMs}.`,
      );
    }
    this.handle = new MongoHandle(options, "MongoSessionLock", async () => undefined);
  }

  async acquire(key: SessionLockKey, { waitMs, signal }: SessionLockOptions): Promise<ReleaseSessionLock> {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    const leases = (await this.handle.db()).collection<LeaseDocument>(SESSION_LOCK_COLLECTION);
    const id = SessionQueueKey.of(key);
    const token = randomUUID();
    const deadline = performance.now() + waitMs;
    for (let retryMs = FIRST_RETRY_MS; ; retryMs = Math.min(retryMs * 2, MAX_RETRY_MS)) {
      if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
      const now = Date.now();
      try {
        await leases.updateOne(
          { _id: id, expiresAt: { $lte: new Date(now) } },
          { $set: { owner: token, expiresAt: new Date(now + this.leaseMs) } },
          { upsert: true },
        );
        break;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw storeError("session lock", error);
      }
      const left = deadline - performance.now();
      if (left <= 0) throw new SessionBusyError(key.sessionId, waitMs);
      await pause(Math.min(retryMs, left), signal);
    }
    const timer = setInterval(
      () => {
        const now = Date.now();
        // A lease lost meanwhile (expired and taken) is not taken back: the renewal matches nothing.
        leases
          .updateOne({ _id: id, owner: token }, { $set: { expiresAt: new Date(now + this.leaseMs) } })
          .catch(() => undefined);
      },
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    let released: Promise<void> | undefined;
    const release = () => {
      released ??= (async () => {
        clearInterval(timer);
        this.held.delete(token);
        await leases.deleteOne({ _id: id, owner: token }).catch(() => undefined);
      })();
      return released;
    };
    this.held.set(token, { timer, release });
    return release;
  }

  /** Gives back the leases still held, then closes the client it created. */
  async close(): Promise<void> {
    await Promise.all([...this.held.values()].map((lease) => lease.release()));
    await this.handle.close();
  }
}

/** Waits `ms`, or rejects with `RunAbortedError` when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new RunAbortedError({ cause: signal?.reason }));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
