import type { Chat } from "../hooks/use-chat.js";
import type { AgentEvent } from "../lib/types.js";
import type { Api } from "../services/api.js";
import { ArtifactsPanel } from "./artifacts-panel.js";
import { EvalPanel } from "./eval-panel.js";
import { EventPanel } from "./event-panel.js";
import { GraphPanel } from "./graph-panel.js";
import { StatePanel } from "./state-panel.js";
import { TracePanel } from "./trace-panel.js";

interface Props {
  api: Api;
  app?: string;
  userId: string;
  chat: Chat;
  selected?: AgentEvent;
  dark: boolean;
  tab?: string;
  onTab(tab: string): void;
  onError(message: string): void;
}

const TABS = ["event", "trace", "state", "artifacts", "graph", "evals"] as const;
type Tab = (typeof TABS)[number];

/** The right-hand side: one tab per way of looking inside the app and the open session. */
export function Inspector(props: Props) {
  const tab: Tab = (TABS as readonly string[]).includes(props.tab ?? "") ? (props.tab as Tab) : "event";
  const { api, app, userId, chat, onError } = props;
  const session = chat.session;
  return (
    <aside class="inspector" aria-label="Inspector">
      <div role="tablist" class="tabs">
        {TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            aria-selected={t === tab}
            class={t === tab ? "tab active" : "tab"}
            onClick={() => props.onTab(t)}
            onKeyDown={(e) => {
              const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
              if (!step) return;
              const next = TABS[(TABS.indexOf(t) + step + TABS.length) % TABS.length]!;
              props.onTab(next);
              (e.currentTarget.parentElement?.querySelector(`[data-tab="${next}"]`) as HTMLElement | null)?.focus();
            }}
            data-tab={t}
          >
            {t[0]!.toUpperCase() + t.slice(1)}
          </button>
        ))}
      </div>
      <div role="tabpanel" class="tab-body">
        {!app ? (
          <p class="muted">Pick an app.</p>
        ) : tab === "graph" ? (
          <GraphPanel api={api} app={app} dark={props.dark} chat={chat} onError={onError} />
        ) : tab === "evals" ? (
          <EvalPanel api={api} app={app} session={session} onError={onError} />
        ) : !session ? (
          <p class="muted">Open or start a session.</p>
        ) : tab === "event" ? (
          <EventPanel api={api} app={app} userId={userId} session={session} event={props.selected} dark={props.dark} />
        ) : tab === "trace" ? (
          <TracePanel api={api} app={app} sessionId={session.id} revision={chat.revision} />
        ) : tab === "state" ? (
          <StatePanel
            api={api}
            app={app}
            userId={userId}
            session={session}
            onUpdated={chat.setSession}
            onError={onError}
          />
        ) : (
          <ArtifactsPanel
            api={api}
            app={app}
            userId={userId}
            sessionId={session.id}
            revision={chat.revision}
            onError={onError}
          />
        )}
      </div>
    </aside>
  );
}
