import { KeyedQueue, SessionQueueKey } from "@agentkit/core/internal";

/**
 * Serializes work on one session inside this process: runs (and state patches) on the same
 * session key take turns in arrival order, so two concurrent `/run` calls never interleave
 * their appends. Waiting is cancellable: an aborted signal leaves the line with
 * `RunAbortedError`. Different sessions never wait for each other. Core's `KeyedQueue` (the
 * one serial queue of the code base) keyed by session.
 */
export class SessionRunQueue extends KeyedQueue {
  static keyOf(appName: string, userId: string, sessionId: string): string {
    return SessionQueueKey.of({ appName, userId, sessionId });
  }
}
