import type { Session } from "./types.js";

/** ADK's UI keeps a session's display name in this state key (http-api.md 4.2, 4.3). */
export const SESSION_METADATA_KEY = "__session_metadata__";

/** `lastUpdateTime` in milliseconds: seconds per the contract, but tolerate JS servers' ms. */
export function lastUpdateMs(value: number): number {
  return value > 1e11 ? value : value * 1000;
}

/** Most recent first. */
export function sortSessions<T extends Pick<Session, "lastUpdateTime">>(sessions: readonly T[]): T[] {
  return [...sessions].sort((a, b) => lastUpdateMs(b.lastUpdateTime) - lastUpdateMs(a.lastUpdateTime));
}

/** A session list answer: an array, or JS 2.0's page object `{sessions: [...]}`. */
export function sessionsFromList(body: unknown): Session[] {
  if (Array.isArray(body)) return body as Session[];
  if (typeof body === "object" && body !== null && Array.isArray((body as { sessions?: unknown }).sessions)) {
    return (body as { sessions: Session[] }).sessions;
  }
  return [];
}

export function displayName(session: Pick<Session, "state" | "id">): string {
  const meta = session.state?.[SESSION_METADATA_KEY];
  if (typeof meta === "object" && meta !== null) {
    const name = (meta as { displayName?: unknown }).displayName;
    if (typeof name === "string" && name.trim()) return name;
  }
  return session.id.slice(0, 8);
}

/** The state delta that renames a session, keeping other metadata keys. */
export function renameDelta(state: Record<string, unknown>, name: string): Record<string, unknown> {
  const meta = state[SESSION_METADATA_KEY];
  const previous = typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : {};
  return { [SESSION_METADATA_KEY]: { ...previous, displayName: name } };
}

/** The display name ADK gives a new chat from its first message: 47 characters and "..." past 50. */
export function nameFromMessage(text: string): string {
  const clean = text.trim().replace(/\s+/g, " ");
  return clean.length > 50 ? `${clean.slice(0, 47)}...` : clean;
}

/** "14:03:27" today, "Nov 3, 14:03" otherwise. */
export function formatTime(ms: number, now: number = Date.now()): string {
  const date = new Date(ms);
  const today = new Date(now);
  const sameDay = date.toDateString() === today.toDateString();
  const time = date.toLocaleTimeString(undefined, {
    hour: "2-digit",
    minute: "2-digit",
    ...(sameDay ? { second: "2-digit" } : {}),
  });
  if (sameDay) return time;
  return `${date.toLocaleDateString(undefined, { month: "short", day: "numeric", ...(date.getFullYear() !== today.getFullYear() ? { year: "numeric" } : {}) })}, ${time}`;
}
