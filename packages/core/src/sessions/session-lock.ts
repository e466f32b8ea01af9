/** The session a lock is for. */
export interface SessionLockKey {
  appName: string;
  userId: string;
  sessionId: string;
}

/** Gives a session's lock back; resolves once the store has it (never rejects). */
export type ReleaseSessionLock = () => Promise<void>;

export interface SessionLockOptions {
  /** How long to wait for the lock; past it `SessionBusyError`. */
  waitMs: number;
  /** Stops waiting with `RunAbortedError` (e.g. the client left). */
  signal?: AbortSignal;
}

/**
 * A lock on one session shared by every process using the same store, so runs on a session are
 * serialized across replicas the way the server's in-process queue serializes them within one:
 * the server takes it around a whole run, before anything of the run is stored. Implementations:
 * `PostgresSessionLock` (advisory locks) and `MongoSessionLock` (a lease document) in
 * `@agentkit/sessions`; one process needs none (docs/deployment.md#several-replicas).
 */
export interface SessionLock {
  /**
   * Waits for the session's lock and resolves with its release. Throws `SessionBusyError` past
   * `waitMs`, `RunAbortedError` when `signal` aborts, and a store error when the store is down.
   */
  acquire(key: SessionLockKey, options: SessionLockOptions): Promise<ReleaseSessionLock>;
  /** Releases what the lock holds (connections, timers); held locks end with it. */
  close(): Promise<void>;
}
