import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { applyEvent, mergeStored, settle } from "../lib/chat-events.js";
import { nameFromMessage, SESSION_METADATA_KEY } from "../lib/session-info.js";
import type { AgentEvent, Part, Session } from "../lib/types.js";
import type { Api, RunRequest } from "../services/api.js";

export interface ChatTarget {
  app?: string;
  userId: string;
  sessionId?: string;
}

export interface Chat {
  session?: Session;
  events: AgentEvent[];
  running: boolean;
  /** Bumped after every run and state change so panels reload (trace, artifacts, state). */
  revision: number;
  send(parts: Part[], options?: { functionCallEventId?: string }): Promise<void>;
  stop(): void;
  reload(): Promise<void>;
  setSession(session: Session): void;
  /** Adds an event that arrived outside a run_sse call (live mode). */
  receive(event: AgentEvent): void;
}

/**
 * The open session and its runs: loads it, sends messages over /run_sse (creating the session
 * on the first message when none is open), merges streamed events, and reports errors through
 * `onError` (HTTP failures and error frames alike, never swallowed).
 */
export function useChat(
  api: Api,
  target: ChatTarget,
  streaming: boolean,
  onError: (message: string) => void,
  onCreated: (session: Session) => void,
): Chat {
  const [session, setSessionState] = useState<Session | undefined>();
  const [events, setEvents] = useState<AgentEvent[]>([]);
  const [running, setRunning] = useState(false);
  const [revision, setRevision] = useState(0);
  const abort = useRef<AbortController | undefined>(undefined);
  /** The session shown; a URL change to it (after creating it on the first message) must not reload it mid-run. */
  const shownId = useRef<string | undefined>(undefined);

  const setSession = useCallback((s: Session) => {
    shownId.current = s.id;
    setSessionState(s);
    setEvents(s.events ?? []);
    setRevision((r) => r + 1);
  }, []);

  const load = useCallback(async () => {
    const { app, userId, sessionId } = target;
    if (!app || !sessionId) {
      shownId.current = undefined;
      setSessionState(undefined);
      setEvents([]);
      return;
    }
    try {
      setSession(await api.getSession(app, userId, sessionId));
    } catch (error) {
      shownId.current = undefined;
      setSessionState(undefined);
      setEvents([]);
      onError(`Could not open session ${sessionId}: ${(error as Error).message}`);
    }
  }, [api, target.app, target.userId, target.sessionId]);

  useEffect(() => {
    if (target.sessionId && target.sessionId === shownId.current) return;
    abort.current?.abort();
    void load();
  }, [load]);

  const send = useCallback(
    async (parts: Part[], options: { functionCallEventId?: string } = {}) => {
      const { app, userId } = target;
      if (!app || parts.length === 0 || running) return;
      let current = session;
      try {
        if (!current) {
          const text = parts
            .map((p) => p.text ?? "")
            .join(" ")
            .trim();
          current = await api.createSession(
            app,
            userId,
            text ? { [SESSION_METADATA_KEY]: { displayName: nameFromMessage(text) } } : undefined,
          );
          shownId.current = current.id;
          setSessionState(current);
          setEvents([]);
          onCreated(current);
        }
      } catch (error) {
        onError(`Could not create a session: ${(error as Error).message}`);
        return;
      }
      const userEvent: AgentEvent = { id: `local-${Date.now()}`, author: "user", content: { role: "user", parts } };
      setEvents((list) => [...list, userEvent]);
      const controller = new AbortController();
      abort.current = controller;
      setRunning(true);
      const request: RunRequest = {
        appName: app,
        userId,
        sessionId: current.id,
        newMessage: { role: "user", parts },
        streaming,
        stateDelta: null,
        ...(options.functionCallEventId ? { functionCallEventId: options.functionCallEventId } : {}),
      };
      try {
        await api.runSse(request, (event) => setEvents((list) => applyEvent(list, event)), controller.signal);
      } catch (error) {
        if (!controller.signal.aborted) onError(`Run failed: ${(error as Error).message}`);
      } finally {
        setRunning(false);
        abort.current = undefined;
        setEvents((list) => settle(list));
      }
      // The stored session is the truth (ids of the user's event, state changes).
      try {
        const fresh = await api.getSession(app, userId, current.id);
        setSessionState(fresh);
        setEvents((list) => mergeStored(fresh.events, list));
      } catch (error) {
        onError(`Could not reload the session: ${(error as Error).message}`);
      }
      setRevision((r) => r + 1);
    },
    [api, target.app, target.userId, session, streaming, running],
  );

  const stop = useCallback(() => abort.current?.abort(), []);

  const receive = useCallback((event: AgentEvent) => setEvents((list) => applyEvent(list, event)), []);

  return { session, events, running, revision, send, stop, reload: load, setSession, receive };
}
