import { useMemo } from "preact/hooks";
import type { AgentEvent, Part } from "../lib/types.js";
import { renderMarkdown } from "../services/markdown.js";
import { ToolCard } from "./tool-card.js";

interface Props {
  event: AgentEvent;
  /** Author of the previous message: a change of agent is shown as a transfer. */
  previousAuthor?: string;
  selected: boolean;
  onSelect(): void;
  /** Offered on the user's own stored messages: undo this turn and everything after it. */
  onRewind?(): void;
}

/** One event of the chat: author, text (markdown), attachments, tool cards, errors, actions. */
export function EventMessage({ event, previousAuthor, selected, onSelect, onRewind }: Props) {
  const author = event.author ?? "unknown";
  const isUser = author === "user" && !event.content?.parts?.some((p) => p.functionResponse || p.functionCall);
  const parts = event.content?.parts ?? [];
  const transfer = event.actions?.transferToAgent;
  const artifacts = Object.entries(event.actions?.artifactDelta ?? {});
  const stateKeys = Object.keys(event.actions?.stateDelta ?? {});
  return (
    <article
      class={`message ${isUser ? "from-user" : "from-agent"}${selected ? " selected" : ""}${event.partial ? " partial" : ""}`}
      data-event-id={event.id}
      data-author={author}
    >
      <div class="message-head">
        <span class="author">{author}</span>
        {previousAuthor && previousAuthor !== author && author !== "user" && previousAuthor !== "user" ? (
          <span class="muted"> (took over from {previousAuthor})</span>
        ) : null}
        {onRewind ? (
          <button
            type="button"
            class="ghost inspect"
            aria-label="Rewind to before this message"
            title="Rewind to before this message"
            onClick={onRewind}
          >
            ↶
          </button>
        ) : null}
        {!event.id.startsWith("local-") ? (
          <button type="button" class="ghost inspect" aria-label={`Inspect event ${event.id}`} onClick={onSelect}>
            {"{ }"}
          </button>
        ) : null}
      </div>
      {parts.map((part, i) => (
        <PartView key={i} part={part} />
      ))}
      {event.inputTranscription?.text ? <p class="transcript">You said: {event.inputTranscription.text}</p> : null}
      {event.outputTranscription?.text ? <p class="transcript">{event.outputTranscription.text}</p> : null}
      {event.errorCode || event.errorMessage ? (
        <div class="error-block" role="alert">
          <strong>{event.errorCode ?? "Error"}</strong>: {event.errorMessage ?? ""}
        </div>
      ) : null}
      {transfer ? (
        <div class="note">
          → transferred to <strong>{transfer}</strong>
        </div>
      ) : null}
      {artifacts.length > 0 ? (
        <div class="note">
          Saved artifact{artifacts.length > 1 ? "s" : ""}: {artifacts.map(([name, v]) => `${name} (v${v})`).join(", ")}
        </div>
      ) : null}
      {stateKeys.length > 0 ? <div class="note muted">State: {stateKeys.join(", ")}</div> : null}
    </article>
  );
}

function PartView({ part }: { part: Part }) {
  if (part.text !== undefined) return part.thought ? <Thought text={part.text} /> : <Markdown text={part.text} />;
  if (part.functionCall) return <ToolCard call={part.functionCall} />;
  if (part.functionResponse) return <ToolCard response={part.functionResponse} />;
  if (part.inlineData) {
    const { mimeType, data, displayName } = part.inlineData;
    if (mimeType.startsWith("audio/pcm")) return null; // live audio: played, not listed
    if (mimeType.startsWith("image/"))
      return <img class="inline-image" alt={displayName ?? "image"} src={`data:${mimeType};base64,${data}`} />;
    return (
      <div class="attachment">
        File: {displayName ?? "file"} <span class="muted">({mimeType})</span>
      </div>
    );
  }
  if (part.fileData) return <div class="attachment">Link: {part.fileData.displayName ?? part.fileData.fileUri}</div>;
  if (part.executableCode) return <pre class="code">{part.executableCode.code}</pre>;
  if (part.codeExecutionResult) return <pre class="code">{part.codeExecutionResult.output ?? ""}</pre>;
  return null;
}

function Markdown({ text }: { text: string }) {
  const html = useMemo(() => renderMarkdown(text), [text]);
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: html }} />;
}

function Thought({ text }: { text: string }) {
  return (
    <details class="thought">
      <summary>Thought</summary>
      <Markdown text={text} />
    </details>
  );
}
