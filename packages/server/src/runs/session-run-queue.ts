import type { SessionLockKey, SessionLock } from "@agentkit/core";
import { KeyedQueue, type ReleaseSlot, SessionQueueKey } from "@agentkit/core/internal";

/** Releases a slot taken with `SessionRunQueue.acquire`; calling it twice is harmless. */
export type ReleaseRun = ReleaseSlot;

/** The cluster-wide lock runs take after their turn in this process (see `AgentServerOptions.sessionLock`). */
export interface ClusterSessionLock {
  lock: SessionLock;
  waitMs: number;
}

/**
 * Serializes work on one session: runs (and state patches) on the same session key take turns
 * in arrival order inside this process, so two concurrent `/run` calls never interleave their
 * appends, and then, with a `ClusterSessionLock`, hold the session's lock in the shared store
 * so runs on other replicas wait too. Waiting is cancellable: an aborted signal leaves the line
 * with `RunAbortedError`. Different sessions never wait for each other. Core's `KeyedQueue`
 * (the one serial queue of the code base) keyed by session.
 */
export class SessionRunQueue extends KeyedQueue {
  constructor(
    private readonly cluster?: ClusterSessionLock,
    /** Told how long each acquired turn waited (in-process queue plus store lock), for metrics. */
    private readonly onWait?: (ms: number, appName: string) => void,
  ) {
    super();
  }

  /**
   * Waits for the session's turn in this process, then for its cluster lock (one process
   * asks the store at a time per session; `SessionBusyError` past `waitMs`). The slot here is
   * given up only once the store has the lock back, so `idle()` covers the unlock too. A chain
   * of the queue's own promise rather than async frames: a free session without a cluster lock
   * costs one promise (and one more for the wait's metric).
   */
  acquireSession(key: SessionLockKey, signal?: AbortSignal): Promise<ReleaseRun> {
    const started = this.onWait ? performance.now() : 0;
    const turn = this.acquire(SessionQueueKey.of(key), signal);
    const locked = this.cluster ? turn.then((release) => this.lockCluster(key, release, signal)) : turn;
    const onWait = this.onWait;
    if (!onWait) return locked;
    return locked.then((release) => {
      onWait(performance.now() - started, key.appName);
      return release;
    });
  }

  /** The cluster lock once this process's turn is ours; the turn is given back if locking fails. */
  private async lockCluster(key: SessionLockKey, release: ReleaseRun, signal?: AbortSignal): Promise<ReleaseRun> {
    const cluster = this.cluster!;
    let unlock: () => Promise<void>;
    try {
      unlock = await cluster.lock.acquire(key, { waitMs: cluster.waitMs, ...(signal ? { signal } : {}) });
    } catch (error) {
      release();
      throw error;
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      void unlock().then(release);
    };
  }

  /**
   * Runs `task` holding the session's turn (released when it settles, also on failure). An
   * aborted `signal` (the client left) gives up the wait with `RunAbortedError`: the task never runs.
   */
  async runSession<T>(key: SessionLockKey, task: () => Promise<T> | T, signal?: AbortSignal): Promise<T> {
    const release = await this.acquireSession(key, signal);
    try {
      return await task();
    } finally {
      release();
    }
  }
}
