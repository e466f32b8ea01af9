import { useEffect, useState } from "preact/hooks";
import { JsonView } from "../components/json-view.js";
import { formatDuration, isSpanList, timeline, type TimelineRow } from "../lib/trace.js";
import type { Api } from "../services/api.js";

/** The session's spans as a nested timeline (invocation → agent → model / tool calls) with durations. */
export function TracePanel({
  api,
  app,
  sessionId,
  revision,
}: {
  api: Api;
  app: string;
  sessionId: string;
  revision: number;
}) {
  const [rows, setRows] = useState<TimelineRow[] | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [open, setOpen] = useState<string | undefined>();
  useEffect(() => {
    let live = true;
    api.sessionTrace(app, sessionId).then(
      (spans) => {
        if (!live) return;
        if (!isSpanList(spans)) return setError("The server's trace does not have the expected shape.");
        setError(undefined);
        setRows(timeline(spans));
      },
      (e: Error) => live && setError(e.message),
    );
    return () => {
      live = false;
    };
  }, [api, app, sessionId, revision]);

  if (error) return <p class="error-block">Could not load the trace: {error}</p>;
  if (!rows) return <p class="muted">Loading trace…</p>;
  if (rows.length === 0) return <p class="muted">No spans recorded for this session yet.</p>;
  const end = Math.max(...rows.map((r) => r.startMs + r.durationMs), 0.001);
  return (
    <section class="trace">
      <h3>Trace</h3>
      <ol class="spans">
        {rows.map((row) => {
          const id = String(row.span.span_id);
          return (
            <li key={id} class="span" data-span={row.span.name}>
              <button
                type="button"
                class="span-row ghost"
                onClick={() => setOpen(open === id ? undefined : id)}
                aria-expanded={open === id}
              >
                <span class="span-name" style={{ paddingLeft: `${row.depth * 14}px` }}>
                  {row.span.name}
                </span>
                <span class="span-bar">
                  <span
                    style={{
                      left: `${(row.startMs / end) * 100}%`,
                      width: `${Math.max((row.durationMs / end) * 100, 0.5)}%`,
                    }}
                  />
                </span>
                <span class="span-duration muted">{formatDuration(row.durationMs)}</span>
              </button>
              {open === id ? <JsonView value={row.span.attributes} label={`Attributes of ${row.span.name}`} /> : null}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
