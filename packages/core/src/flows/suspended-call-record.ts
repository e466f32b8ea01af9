import type { Event } from "../events/event.js";

/** What the flow stores with a suspended tool call (`actions.agentState.suspendedCall`). */
export interface SuspendedCallRecord {
  id: string;
  name: string;
  args: Record<string, unknown>;
  checkpoint: unknown;
}

/** The record of a suspended call in an event, if it holds one. */
export function suspendedCallOf(event: Event): SuspendedCallRecord | undefined {
  const record = (event.actions.agentState as { suspendedCall?: SuspendedCallRecord } | undefined)?.suspendedCall;
  return record && typeof record.id === "string" ? record : undefined;
}
