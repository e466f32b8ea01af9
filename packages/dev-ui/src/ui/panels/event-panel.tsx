import { useEffect, useState } from "preact/hooks";
import { JsonView } from "../components/json-view.js";
import { dotFromResponse } from "../lib/dot.js";
import { llmExchange } from "../lib/trace.js";
import type { AgentEvent, Session } from "../lib/types.js";
import { usageRows } from "../lib/usage.js";
import type { Api } from "../services/api.js";
import { GraphView } from "./graph-view.js";

interface Props {
  api: Api;
  app: string;
  userId: string;
  session: Session;
  event?: AgentEvent;
  dark: boolean;
}

/** One event: its JSON, token usage, the model request/response behind it (trace) and its graph. */
export function EventPanel({ api, app, userId, session, event }: Props) {
  const [trace, setTrace] = useState<Record<string, unknown> | null | undefined>();
  const [dot, setDot] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    setTrace(undefined);
    setDot(undefined);
    if (!event) return;
    // only agent events come from a model call; the user's own messages have no trace entry
    if (event.author === "user") setTrace(null);
    else
      api.eventTrace(app, event.id).then(
        (t) => live && setTrace(t),
        () => live && setTrace(null),
      );
    api.eventGraph(app, userId, session.id, event.id).then(
      (g) => live && setDot(dotFromResponse(g) ?? ""),
      () => live && setDot(""),
    );
    return () => {
      live = false;
    };
  }, [api, app, userId, session.id, event?.id]);

  if (!event) return <p class="muted">Select a message's {"{ }"} button to inspect its event.</p>;
  const usage = usageRows(event.usageMetadata);
  const exchange = trace ? llmExchange(trace) : {};
  return (
    <section class="event-panel" data-event-id={event.id}>
      <h3>Event {event.id}</h3>
      <p class="muted">
        by <strong>{event.author}</strong>
        {event.invocationId ? <> · invocation {event.invocationId}</> : null}
      </p>
      {usage.length > 0 ? (
        <table class="usage" aria-label="Token usage">
          <tbody>
            {usage.map(([k, v]) => (
              <tr key={k}>
                <th>{k}</th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      <details open>
        <summary>Event JSON</summary>
        <JsonView value={event} label="Event JSON" />
      </details>
      <details open={exchange.request !== undefined}>
        <summary>Model request</summary>
        {trace === undefined ? (
          <p class="muted">Loading…</p>
        ) : exchange.request === undefined ? (
          <p class="muted">No model call recorded for this event.</p>
        ) : (
          <JsonView value={exchange.request} label="Model request" />
        )}
      </details>
      <details open={exchange.response !== undefined}>
        <summary>Model response</summary>
        {exchange.response === undefined ? (
          <p class="muted">No model response recorded.</p>
        ) : (
          <JsonView value={exchange.response} label="Model response" />
        )}
      </details>
      {trace ? (
        <details>
          <summary>Span attributes</summary>
          <JsonView value={trace} />
        </details>
      ) : null}
      {dot ? (
        <details>
          <summary>Graph of this event</summary>
          <GraphView dot={dot} label="Event graph" />
        </details>
      ) : null}
    </section>
  );
}
