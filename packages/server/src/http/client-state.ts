import type { Response } from "express";
import type { Event } from "@agentkit/core";
import { checkClientState, type ClientStatePolicy } from "@agentkit/core/internal";
import { isAdmin, principalOf } from "../auth/principal.js";

/**
 * What state this request may write: without authentication the server's one user is the
 * developer and may write `app:` keys; with authentication only an admin may.
 */
export function clientStatePolicy(res: Response): ClientStatePolicy {
  const principal = principalOf(res);
  return { allowAppState: principal === undefined || isAdmin(principal) };
}

/**
 * Refuses state a client may not write (typed error → 400/403); see `checkClientState`. A new
 * session's initial state (`initial`) may hold `temp:` keys: the session service drops them.
 */
export function checkRequestState(
  res: Response,
  state: Record<string, unknown> | null | undefined,
  field: string,
  { initial = false }: { initial?: boolean } = {},
): void {
  if (state) checkClientState(state, { ...clientStatePolicy(res), refuseTempKeys: !initial }, field);
}

/**
 * Events a client imports on session create are history, never pending requests: they lose
 * `longRunningToolIds`, the confirmation, credential and input records, and workflow checkpoints
 * (`agentState`, `nodeInfo`), so none of their calls can be answered later (only requests this
 * server's flow emitted are answerable) and no run resumes from them; their state deltas follow
 * the same rules as any client state.
 */
export function sanitizeImportedEvents(res: Response, events: Event[]): Event[] {
  return events.map((event, i) => {
    checkRequestState(res, event.actions.stateDelta, `events.${i}.actions.stateDelta`);
    const { longRunningToolIds: _dropped, nodeInfo: _node, ...rest } = event;
    const { agentState: _state, requestedInputs: _inputs, ...actions } = event.actions;
    return { ...rest, actions: { ...actions, requestedToolConfirmations: {}, requestedAuthConfigs: {} } };
  });
}
