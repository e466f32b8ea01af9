import { useEffect, useMemo, useRef } from "preact/hooks";
import type { Chat } from "../hooks/use-chat.js";
import { pendingCalls } from "../lib/chat-events.js";
import { isRewindable, withoutRewound } from "../lib/rewind.js";
import { displayName } from "../lib/session-info.js";
import type { AgentEvent } from "../lib/types.js";
import { sessionUsage } from "../lib/usage.js";
import type { Api } from "../services/api.js";
import { Composer } from "./composer.js";
import { EventMessage } from "./event-message.js";
import { LiveButton } from "./live-button.js";
import { PendingAction } from "./pending-action.js";

interface Props {
  api: Api;
  app: string;
  chat: Chat;
  selectedEvent?: string;
  onSelectEvent(id: string): void;
  onError(message: string): void;
}

export function ChatPanel({ api, app, chat, selectedEvent, onSelectEvent, onError }: Props) {
  const bottom = useRef<HTMLDivElement>(null);
  const history = useMemo(() => withoutRewound(chat.events), [chat.events]);
  const pending = useMemo(() => (chat.running ? [] : pendingCalls(history)), [history, chat.running]);
  const usage = useMemo(() => sessionUsage(chat.events), [chat.events]);
  useEffect(
    () => bottom.current?.scrollIntoView?.({ block: "end" }),
    [chat.events.length, chat.events[chat.events.length - 1]],
  );
  const rewind = async (invocationId: string) => {
    const session = chat.session;
    if (!session || !confirm("Rewind to before this message? This turn and every later one are undone.")) return;
    try {
      await api.rewindSession(app, session.userId, session.id, invocationId);
    } catch (error) {
      onError(`Could not rewind the session: ${(error as Error).message}`);
    }
    await chat.reload();
  };
  const shown = history.filter(
    (e) =>
      hasVisibleParts(e) ||
      e.inputTranscription?.text ||
      e.outputTranscription?.text ||
      e.errorCode ||
      e.errorMessage ||
      e.actions?.transferToAgent ||
      Object.keys(e.actions?.artifactDelta ?? {}).length,
  );

  return (
    <main class="chat" aria-label="Chat">
      <div class="chat-head">
        <h1>{chat.session ? displayName(chat.session) : "New chat"}</h1>
        {usage.events > 0 ? (
          <span class="muted" data-testid="session-tokens" title="Prompt / response tokens over the session">
            {usage.total} tokens ({usage.prompt} in, {usage.candidates} out)
          </span>
        ) : null}
      </div>
      <div class="messages" aria-live="polite">
        {shown.map((event, i) => (
          <EventMessage
            key={event.id}
            event={event}
            previousAuthor={shown[i - 1]?.author}
            selected={event.id === selectedEvent}
            onSelect={() => onSelectEvent(event.id)}
            {...(!chat.running && isRewindable(event) ? { onRewind: () => void rewind(event.invocationId!) } : {})}
          />
        ))}
        {chat.running ? <div class="muted typing">{app} is working…</div> : null}
        {pending.map((p) => (
          <PendingAction
            key={p.call.id}
            pending={p}
            disabled={chat.running}
            onAnswer={(parts, eventId) => void chat.send(parts, { functionCallEventId: eventId })}
          />
        ))}
        <div ref={bottom} />
      </div>
      <Composer
        running={chat.running}
        onSend={(parts) => void chat.send(parts)}
        onStop={chat.stop}
        onError={onError}
        extra={<LiveButton api={api} app={app} chat={chat} onError={onError} />}
      />
    </main>
  );
}

/** Events with something to show besides live audio chunks (those are played). */
function hasVisibleParts(event: AgentEvent): boolean {
  return (event.content?.parts ?? []).some((p) => !p.inlineData?.mimeType.startsWith("audio/pcm"));
}
