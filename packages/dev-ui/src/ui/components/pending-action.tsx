import { useState } from "preact/hooks";
import { confirmationDetails, parseToolAnswer, type PendingCall } from "../lib/chat-events.js";
import type { Part } from "../lib/types.js";
import { CredentialRequest } from "./credential-request.js";
import { JsonView } from "./json-view.js";

interface Props {
  pending: PendingCall;
  disabled: boolean;
  onAnswer(parts: Part[], functionCallEventId: string): void;
}

/**
 * Answers a call waiting for the client (http-api.md 7):
 * approve/deny a confirmation, or type a long-running tool's result.
 */
export function PendingAction({ pending, disabled, onAnswer }: Props) {
  const [text, setText] = useState("");
  const { call, eventId } = pending;
  const answer = (response: Record<string, unknown>) =>
    onAnswer([{ functionResponse: { id: call.id, name: call.name, response } }], eventId);

  if (pending.kind === "credential")
    return <CredentialRequest pending={pending} disabled={disabled} onAnswer={onAnswer} />;

  if (pending.kind === "confirmation") {
    const details = confirmationDetails(call);
    return (
      <section class="pending" aria-label="Confirmation requested">
        <p>
          <strong>Confirm</strong> the call of <code>{details.tool ?? "a tool"}</code>
          {details.hint ? <>: {details.hint}</> : null}
        </p>
        {details.args !== undefined ? <JsonView value={details.args} /> : null}
        <div class="row">
          <button type="button" class="primary" disabled={disabled} onClick={() => answer({ confirmed: true })}>
            Approve
          </button>
          <button type="button" disabled={disabled} onClick={() => answer({ confirmed: false })}>
            Deny
          </button>
        </div>
      </section>
    );
  }
  return (
    <form
      class="pending"
      aria-label={`Answer ${call.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        if (!text.trim()) return;
        answer(parseToolAnswer(text));
        setText("");
      }}
    >
      {typeof call.args?.message === "string" ? (
        <p class="request-message">
          <strong>{call.args.message}</strong>
        </p>
      ) : null}
      <p>
        <code>{call.name}</code> is waiting for a response (text, or a JSON object).
      </p>
      <JsonView value={call.args ?? {}} />
      <div class="row">
        <input
          aria-label={`Response for ${call.name}`}
          value={text}
          onInput={(e) => setText((e.currentTarget as HTMLInputElement).value)}
          placeholder='e.g. approved or {"status": "done"}'
        />
        <button type="submit" class="primary" disabled={disabled || !text.trim()}>
          Send response
        </button>
      </div>
    </form>
  );
}
