import { useState } from "preact/hooks";
import { displayName, formatTime, lastUpdateMs } from "../lib/session-info.js";
import type { Session } from "../lib/types.js";

interface Props {
  sessions: Session[];
  current?: string;
  disabled: boolean;
  onOpen(id: string): void;
  onCreate(): void;
  onDelete(id: string): void;
  onRename(session: Session, name: string): void;
}

export function SessionList(props: Props) {
  const [editing, setEditing] = useState<string | undefined>();
  return (
    <nav class="sessions" aria-label="Sessions">
      <div class="sessions-head">
        <h2>Sessions</h2>
        <button type="button" onClick={props.onCreate} disabled={props.disabled}>
          + New
        </button>
      </div>
      <ul>
        {props.sessions.map((s) => (
          <li key={s.id} class={s.id === props.current ? "session current" : "session"} data-session-id={s.id}>
            {editing === s.id ? (
              <form
                class="rename"
                onSubmit={(e) => {
                  e.preventDefault();
                  const name = String(new FormData(e.currentTarget as HTMLFormElement).get("name") ?? "").trim();
                  setEditing(undefined);
                  if (name) props.onRename(s, name);
                }}
              >
                <input
                  name="name"
                  aria-label="Session name"
                  defaultValue={displayName(s)}
                  // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename
                  autoFocus
                  onKeyDown={(e) => e.key === "Escape" && setEditing(undefined)}
                />
                <button type="submit">Save</button>
              </form>
            ) : (
              <button
                type="button"
                class="session-open"
                onClick={() => props.onOpen(s.id)}
                aria-current={s.id === props.current ? "page" : undefined}
              >
                <span class="session-name">{displayName(s)}</span>
                <time class="muted" dateTime={new Date(lastUpdateMs(s.lastUpdateTime)).toISOString()}>
                  {formatTime(lastUpdateMs(s.lastUpdateTime))}
                </time>
              </button>
            )}
            <span class="session-actions">
              <button
                type="button"
                class="ghost"
                aria-label={`Rename ${displayName(s)}`}
                title="Rename"
                onClick={() => setEditing(s.id)}
              >
                ✎
              </button>
              <button
                type="button"
                class="ghost"
                aria-label={`Delete ${displayName(s)}`}
                title="Delete"
                onClick={() => {
                  if (confirm(`Delete session "${displayName(s)}"?`)) props.onDelete(s.id);
                }}
              >
                ✕
              </button>
            </span>
          </li>
        ))}
      </ul>
      {props.sessions.length === 0 && !props.disabled ? (
        <p class="muted">No sessions yet: send a message or press New.</p>
      ) : null}
    </nav>
  );
}
