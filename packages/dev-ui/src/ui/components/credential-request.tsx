import { useEffect, useRef, useState } from "preact/hooks";
import { credentialDetails, oauthAnswer, secretAnswer, type PendingCall } from "../lib/chat-events.js";
import type { Part } from "../lib/types.js";

interface Props {
  pending: PendingCall;
  disabled: boolean;
  onAnswer(parts: Part[], functionCallEventId: string): void;
}

/**
 * The consent card of an `adk_request_credential` (http-api.md 7.3). OAuth2: "Authorize" opens
 * the authorization URL in a popup; the server's callback page (`/dev-ui/oauth/callback`) posts
 * the redirect URL back (same origin only) and the card sends it as the answer, so the run goes
 * on. When the popup is blocked or ends elsewhere, the URL can be pasted. Other schemes ask for
 * the secret itself. Nothing is kept in the page after sending.
 */
export function CredentialRequest({ pending, disabled, onAnswer }: Props) {
  const { call, eventId } = pending;
  const details = credentialDetails(call, window.location.origin);
  const [pasted, setPasted] = useState("");
  const [waiting, setWaiting] = useState(false);
  const sent = useRef(false);
  const send = (response: Record<string, unknown>) => {
    if (sent.current) return;
    sent.current = true;
    onAnswer([{ functionResponse: { id: call.id, name: call.name, response } }], eventId);
  };

  useEffect(() => {
    if (!details.authUri) return;
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== window.location.origin) return;
      const url = (event.data as { authResponseUrl?: unknown } | null)?.authResponseUrl;
      if (typeof url !== "string") return;
      setWaiting(false);
      send(oauthAnswer(call, url, details.redirectUri!));
    };
    window.addEventListener("message", onMessage);
    return () => window.removeEventListener("message", onMessage);
  }, [call.id]);

  if (!details.authUri) {
    return (
      <form
        class="pending"
        aria-label="Credential requested"
        onSubmit={(e) => {
          e.preventDefault();
          if (pasted.trim()) send(secretAnswer(call, details.scheme, pasted.trim()));
        }}
      >
        <p>
          A tool needs a credential (<code>{details.scheme}</code>).
        </p>
        <div class="row">
          <input
            type="password"
            aria-label="Credential"
            autocomplete="off"
            value={pasted}
            onInput={(e) => setPasted((e.currentTarget as HTMLInputElement).value)}
          />
          <button type="submit" class="primary" disabled={disabled || !pasted.trim()}>
            Send credential
          </button>
        </div>
      </form>
    );
  }

  return (
    <section class="pending" aria-label="Authorization requested">
      <p>
        <strong>Authorize</strong> access to <code>{details.host}</code> so the agent can act for you.
      </p>
      <div class="row">
        <button
          type="button"
          class="primary"
          disabled={disabled || waiting}
          onClick={() => {
            const popup = window.open(details.authUri, "agentkit-oauth", "popup,width=600,height=700");
            setWaiting(popup !== null);
          }}
        >
          {waiting ? "Waiting for authorization…" : "Authorize"}
        </button>
      </div>
      <form
        class="row"
        aria-label="Paste the redirect URL"
        onSubmit={(e) => {
          e.preventDefault();
          if (pasted.trim()) send(oauthAnswer(call, pasted.trim(), details.redirectUri!));
        }}
      >
        <input
          aria-label="Redirect URL"
          placeholder="or paste the URL the browser was sent back to"
          value={pasted}
          onInput={(e) => setPasted((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={disabled || !pasted.trim()}>
          Send
        </button>
      </form>
    </section>
  );
}
