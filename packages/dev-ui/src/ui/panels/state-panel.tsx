import { useState } from "preact/hooks";
import { JsonView } from "../components/json-view.js";
import type { Session } from "../lib/types.js";
import type { Api } from "../services/api.js";

interface Props {
  api: Api;
  app: string;
  userId: string;
  session: Session;
  onUpdated(session: Session): void;
  onError(message: string): void;
}

/** The session state, and a form that writes one key through PATCH {stateDelta} (http-api.md 4.3). */
export function StatePanel({ api, app, userId, session, onUpdated, onError }: Props) {
  const [key, setKey] = useState("");
  const [value, setValue] = useState("");
  const [busy, setBusy] = useState(false);

  const save = async () => {
    if (!key.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = value; // not JSON: a plain string
    }
    setBusy(true);
    try {
      onUpdated(await api.patchState(app, userId, session.id, { [key.trim()]: parsed }));
      setKey("");
      setValue("");
    } catch (error) {
      onError(`Could not update the state: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h3>State</h3>
      <JsonView value={session.state} label="Session state" />
      <form
        class="state-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <input
          aria-label="State key"
          placeholder="key"
          value={key}
          onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)}
        />
        <input
          aria-label="State value"
          placeholder='value (JSON or text), e.g. 42 or {"a": 1}'
          value={value}
          onInput={(e) => setValue((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || !key.trim()}>
          Set
        </button>
      </form>
      <p class="muted">Changes are recorded as a state-delta event of the session.</p>
    </section>
  );
}
