import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import { ChatPanel } from "./components/chat-panel.js";
import { HeaderBar } from "./components/header-bar.js";
import { SessionList } from "./components/session-list.js";
import { Toasts, type Toast } from "./components/toasts.js";
import { Inspector } from "./panels/inspector.js";
import { useChat } from "./hooks/use-chat.js";
import { useTheme } from "./hooks/use-theme.js";
import { renameDelta, sortSessions } from "./lib/session-info.js";
import type { Session } from "./lib/types.js";
import { readUrlState, writeUrlState, type UrlState } from "./lib/url-state.js";
import type { Api } from "./services/api.js";

export function App({ api }: { api: Api }) {
  const [place, setPlace] = useState<UrlState>(() => readUrlState(location.search));
  const [apps, setApps] = useState<string[]>([]);
  const [sessions, setSessions] = useState<Session[]>([]);
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [version, setVersion] = useState<string | undefined>();
  const [selectedEvent, setSelectedEvent] = useState<string | undefined>();
  const [streaming, setStreaming] = useState(() => localStorage.getItem("agentkit.streaming") !== "false");
  const [theme, toggleTheme] = useTheme();

  const notify = useCallback((message: string) => {
    const id = Date.now() + Math.random();
    setToasts((list) => [...list.slice(-3), { id, message }]);
  }, []);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);

  /** Moves to a place and records it in the URL (a new history entry unless `replace`). */
  const go = useCallback((next: UrlState, replace = false) => {
    setPlace(next);
    const url = `${location.pathname}${writeUrlState(next, location.search)}`;
    if (replace) history.replaceState(null, "", url);
    else history.pushState(null, "", url);
  }, []);

  useEffect(() => {
    const onPop = () => setPlace(readUrlState(location.search));
    addEventListener("popstate", onPop);
    return () => removeEventListener("popstate", onPop);
  }, []);

  useEffect(() => {
    api.version().then(
      (v) => setVersion(v.version),
      () => undefined,
    );
    api.listApps().then(
      (list) => {
        setApps(list);
        // a single app is picked for the user, as ADK's UI does
        if (!place.app && list.length === 1) go({ ...place, app: list[0] }, true);
      },
      (error: Error) => notify(`Could not list apps: ${error.message}`),
    );
  }, [api]);

  const refreshSessions = useCallback(async () => {
    if (!place.app) return setSessions([]);
    try {
      setSessions(sortSessions(await api.listSessions(place.app, place.userId)));
    } catch (error) {
      notify(`Could not list sessions: ${(error as Error).message}`);
    }
  }, [api, place.app, place.userId]);

  useEffect(() => {
    void refreshSessions();
  }, [refreshSessions]);

  const onCreated = useCallback((s: Session) => go({ ...place, session: s.id }), [place, go]);
  const chat = useChat(
    api,
    { app: place.app, userId: place.userId, sessionId: place.session },
    streaming,
    notify,
    onCreated,
  );

  useEffect(() => {
    void refreshSessions();
  }, [chat.revision]);
  useEffect(() => setSelectedEvent(undefined), [place.session]);

  const createSession = async () => {
    if (!place.app) return;
    try {
      const created = await api.createSession(place.app, place.userId);
      go({ ...place, session: created.id });
      await refreshSessions();
    } catch (error) {
      notify(`Could not create a session: ${(error as Error).message}`);
    }
  };

  const deleteSession = async (id: string) => {
    if (!place.app) return;
    try {
      await api.deleteSession(place.app, place.userId, id);
    } catch (error) {
      notify(`Could not delete the session: ${(error as Error).message}`);
    }
    if (place.session === id) go({ ...place, session: undefined });
    await refreshSessions();
  };

  const renameSession = async (target: Session, name: string) => {
    if (!place.app) return;
    try {
      // the list may not carry state: read the session to keep its other metadata
      const full =
        target.id === chat.session?.id ? chat.session : await api.getSession(place.app, place.userId, target.id);
      const updated = await api.patchState(place.app, place.userId, target.id, renameDelta(full.state ?? {}, name));
      if (updated.id === chat.session?.id) chat.setSession(updated);
      await refreshSessions();
    } catch (error) {
      notify(`Could not rename the session (the server needs PATCH, http-api.md 4.3): ${(error as Error).message}`);
    }
  };

  const setStreamingPersisted = (on: boolean) => {
    localStorage.setItem("agentkit.streaming", String(on));
    setStreaming(on);
  };

  const selected = useMemo(() => chat.events.find((e) => e.id === selectedEvent), [chat.events, selectedEvent]);

  return (
    <div class="layout">
      <HeaderBar
        apps={apps}
        app={place.app}
        userId={place.userId}
        version={version}
        streaming={streaming}
        theme={theme}
        onApp={(app) => go({ userId: place.userId, app })}
        onUser={(userId) => go({ userId, ...(place.app ? { app: place.app } : {}) })}
        onStreaming={setStreamingPersisted}
        onTheme={toggleTheme}
      />
      <SessionList
        sessions={sessions}
        current={place.session}
        disabled={!place.app}
        onOpen={(id) => go({ ...place, session: id })}
        onCreate={() => void createSession()}
        onDelete={(id) => void deleteSession(id)}
        onRename={(s, name) => void renameSession(s, name)}
      />
      {place.app ? (
        <ChatPanel
          api={api}
          app={place.app}
          chat={chat}
          selectedEvent={selectedEvent}
          onSelectEvent={setSelectedEvent}
          onError={notify}
        />
      ) : (
        <main class="chat empty">
          <p>{apps.length === 0 ? "No apps found in the agents directory." : "Pick an app to start."}</p>
        </main>
      )}
      <Inspector
        api={api}
        app={place.app}
        userId={place.userId}
        chat={chat}
        selected={selected}
        dark={theme === "dark"}
        tab={place.tab}
        onTab={(tab) => go({ ...place, tab }, true)}
        onError={notify}
      />
      <Toasts toasts={toasts} onDismiss={dismiss} />
    </div>
  );
}
