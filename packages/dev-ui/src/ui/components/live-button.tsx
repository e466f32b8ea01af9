import { useEffect, useRef, useState } from "preact/hooks";
import type { Chat } from "../hooks/use-chat.js";
import type { Api } from "../services/api.js";
import { LiveSession, liveSupported } from "../services/live-session.js";

interface Props {
  api: Api;
  app: string;
  chat: Chat;
  onError(message: string): void;
}

/** Microphone toggle for /run_live; only offered when the browser can capture audio and a session is open. */
export function LiveButton({ api, app, chat, onError }: Props) {
  const [active, setActive] = useState(false);
  const live = useRef<LiveSession | undefined>(undefined);
  useEffect(() => () => live.current?.stop(), []);
  useEffect(() => {
    live.current?.stop();
    live.current = undefined;
    setActive(false);
  }, [chat.session?.id]);
  if (!liveSupported() || !chat.session) return null;
  const session = chat.session;

  const toggle = async () => {
    if (live.current) {
      live.current.stop();
      live.current = undefined;
      setActive(false);
      void chat.reload();
      return;
    }
    const created = new LiveSession({
      backendUrl: api.backendUrl,
      app,
      userId: session.userId,
      sessionId: session.id,
      onEvent: chat.receive,
      onClose: (reason, clean) => {
        live.current = undefined;
        setActive(false);
        if (!clean) onError(`Live session ended: ${reason}`);
        void chat.reload();
      },
    });
    try {
      await created.start();
      live.current = created;
      setActive(true);
    } catch (error) {
      created.stop();
      onError(`Could not start the microphone: ${(error as Error).message}`);
    }
  };

  return (
    <button
      type="button"
      aria-pressed={active}
      aria-label={active ? "Stop live audio" : "Talk (live audio)"}
      title="Live audio over /run_live"
      onClick={() => void toggle()}
      class={active ? "live on" : "live"}
    >
      {active ? "■ Stop mic" : "Mic"}
    </button>
  );
}
