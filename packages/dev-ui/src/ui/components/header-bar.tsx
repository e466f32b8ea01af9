import type { Theme } from "../hooks/use-theme.js";

interface Props {
  apps: string[];
  app?: string;
  userId: string;
  version?: string;
  streaming: boolean;
  theme: Theme;
  onApp(app: string): void;
  onUser(userId: string): void;
  onStreaming(on: boolean): void;
  onTheme(): void;
}

export function HeaderBar(props: Props) {
  return (
    <header class="header">
      <strong class="brand">agentkit</strong>
      {props.version ? <span class="muted">v{props.version}</span> : null}
      <label>
        App{" "}
        <select
          aria-label="App"
          value={props.app ?? ""}
          onChange={(e) => props.onApp((e.currentTarget as HTMLSelectElement).value)}
        >
          <option value="" disabled>
            Select an app
          </option>
          {props.apps.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        User{" "}
        <input
          aria-label="User id"
          class="user-input"
          value={props.userId}
          onChange={(e) => {
            const value = (e.currentTarget as HTMLInputElement).value.trim();
            if (value) props.onUser(value);
          }}
        />
      </label>
      <span class="spacer" />
      <label title="Stream the reply token by token">
        <input
          type="checkbox"
          aria-label="Streaming"
          checked={props.streaming}
          onChange={(e) => props.onStreaming((e.currentTarget as HTMLInputElement).checked)}
        />{" "}
        Streaming
      </label>
      <button type="button" class="ghost" aria-label="Toggle theme" onClick={props.onTheme} title="Light / dark">
        {props.theme === "dark" ? "☀" : "☾"}
      </button>
    </header>
  );
}
