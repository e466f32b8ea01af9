import { readFile, rename, writeFile } from "node:fs/promises";
import { parse, stringify } from "yaml";
import { FAILOVER_METADATA_KEY, MODEL_METADATA_KEY, USAGE_METADATA_KEY, type Session } from "@agentkit/core";
import { toSnakeCase } from "./key-case.js";
import { diffValues } from "./request-diff.js";
import { ReplayConfigError } from "./replay-errors.js";

/**
 * The session a conformance case produced, as stored in `generated-session.yaml`: ADK's
 * snake_case session dump (`app_name`, `user_id`, `state`, `events`). Comparison ignores what
 * differs between two runs of the same conversation (ids, timestamps, invocation ids).
 */
export type SessionSnapshot = Record<string, unknown>;

/** Keys never compared: generated per run. */
export const SESSION_IGNORED_KEYS: ReadonlySet<string> = new Set([
  "id",
  "timestamp",
  "invocation_id",
  "last_update_time",
  "long_running_tool_ids",
]);

/**
 * `custom_metadata` keys never compared: agentkit's usage rollups and the name of the model that
 * answered differ between a recorded run and its replay (where no model is called), and ADK's
 * own sessions do not have them.
 */
export const SESSION_IGNORED_METADATA_KEYS: readonly string[] = [
  USAGE_METADATA_KEY,
  MODEL_METADATA_KEY,
  FAILOVER_METADATA_KEY,
];

export function sessionSnapshot(session: Session): SessionSnapshot {
  return toSnakeCase(JSON.parse(JSON.stringify(session)) as unknown) as SessionSnapshot;
}

export function sessionSnapshotToYaml(snapshot: SessionSnapshot): string {
  return stringify(snapshot, { lineWidth: 0 });
}

export async function writeSessionSnapshotFile(file: string, snapshot: SessionSnapshot): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, sessionSnapshotToYaml(snapshot), "utf8");
  await rename(temp, file);
}

export async function readSessionSnapshotFile(file: string): Promise<SessionSnapshot> {
  let raw: unknown;
  try {
    raw = parse(await readFile(file, "utf8"));
  } catch (error) {
    throw new ReplayConfigError(`Cannot read the session file ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (
    raw === null ||
    typeof raw !== "object" ||
    Array.isArray(raw) ||
    !Array.isArray((raw as { events?: unknown }).events)
  ) {
    throw new ReplayConfigError(`${file}: a session needs an "events" list.`);
  }
  return raw as SessionSnapshot;
}

/** `path: expected X, got Y` lines where the sessions differ (empty when they match). */
export function compareSessionSnapshots(expected: SessionSnapshot, actual: SessionSnapshot): string[] {
  const pick = (s: SessionSnapshot) => ({
    app_name: s.app_name,
    user_id: s.user_id,
    state: s.state ?? {},
    events: Array.isArray(s.events) ? s.events.map(withoutRunMetadata) : s.events,
  });
  return diffValues(pick(expected), pick(actual), SESSION_IGNORED_KEYS);
}

function withoutRunMetadata(event: unknown): unknown {
  if (typeof event !== "object" || event === null) return event;
  const { custom_metadata: metadata, ...rest } = event as Record<string, unknown>;
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) return event;
  const kept = { ...(metadata as Record<string, unknown>) };
  for (const key of SESSION_IGNORED_METADATA_KEYS) delete kept[key];
  return Object.keys(kept).length > 0 ? { ...rest, custom_metadata: kept } : rest;
}
