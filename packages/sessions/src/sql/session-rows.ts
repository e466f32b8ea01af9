import { eventFromJson, type Event, type Session } from "@agentkit/core";
import { mergeState } from "@agentkit/core/internal";
import { EVENT_FORMAT_VERSION } from "./schema.js";
import { SessionStoreError } from "./session-store-error.js";
import type { SqlRow } from "./sql-plan.js";

/** Parses a stored state column (a JSON object; NULL when the shared row does not exist yet). */
export function parseState(value: unknown, what: string): Record<string, unknown> {
  if (value === null || value === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(String(value));
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch (cause) {
    throw new SessionStoreError("SESSION_STORE_CORRUPT", `The stored ${what} is not valid JSON.`, { cause });
  }
  throw new SessionStoreError("SESSION_STORE_CORRUPT", `The stored ${what} is not a JSON object.`);
}

/** A stored event row back to an `Event`, dispatching on the row's format version. */
export function rowToEvent(row: SqlRow): Event {
  const format = Number(row.format_version ?? 1);
  if (format > EVENT_FORMAT_VERSION) {
    throw new SessionStoreError(
      "SESSION_STORE_TOO_NEW",
      `Event ${String(row.id)} is stored in format ${format}; this agentkit reads formats up ` +
        `to ${EVENT_FORMAT_VERSION}. Upgrade @agentkit/sessions.`,
    );
  }
  try {
    return eventFromJson(String(row.event_json));
  } catch (cause) {
    throw new SessionStoreError(
      "SESSION_STORE_CORRUPT",
      `Stored event ${String(row.id)} cannot be read back: ${(cause as Error).message}`,
      { cause },
    );
  }
}

/** A session row (joined with its app and user state) plus events to a `Session`. */
export function rowToSession(row: SqlRow, events: Event[]): Session {
  return {
    id: String(row.id),
    appName: String(row.app_name),
    userId: String(row.user_id),
    state: mergeState(
      parseState(row.app_state, "app state"),
      parseState(row.user_state, "user state"),
      parseState(row.state, "session state"),
    ),
    events,
    lastUpdateTime: Number(row.last_update_time),
  };
}
