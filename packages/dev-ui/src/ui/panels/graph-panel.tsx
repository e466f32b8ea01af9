import { useEffect, useMemo, useState } from "preact/hooks";
import { PendingAction } from "../components/pending-action.js";
import type { Chat } from "../hooks/use-chat.js";
import { pendingCalls } from "../lib/chat-events.js";
import { dotFromResponse } from "../lib/dot.js";
import { withoutRewound } from "../lib/rewind.js";
import { runStatus, runsOf, type NodeStatus } from "../lib/run-status.js";
import type { Api } from "../services/api.js";
import { GraphView } from "./graph-view.js";

const LABELS: Record<NodeStatus, string> = {
  running: "running",
  waiting: "waiting for you",
  completed: "done",
  failed: "failed",
  interrupted: "interrupted",
};

/**
 * The app's graph from GET /dev/apps/{app}/build_graph_image, coloured with what a run of the
 * open session did (lib/run-status.ts), and the run's pending requests, answered here through
 * the chat's own path so the run resumes and the colours follow.
 */
export function GraphPanel({
  api,
  app,
  dark,
  chat,
  onError,
}: {
  api: Api;
  app: string;
  dark: boolean;
  chat: Chat;
  onError(m: string): void;
}) {
  const [dot, setDot] = useState<string | undefined>();
  const [picked, setPicked] = useState<string | undefined>();
  const [drawn, setDrawn] = useState<ReadonlySet<string>>(new Set());
  useEffect(() => {
    let live = true;
    setDot(undefined);
    api.appGraph(app, dark).then(
      (body) => live && setDot(dotFromResponse(body) ?? ""),
      (e: Error) => live && onError(`Could not load the agent graph: ${e.message}`),
    );
    return () => {
      live = false;
    };
  }, [api, app, dark]);

  const history = useMemo(() => withoutRewound(chat.events), [chat.events]);
  const runs = useMemo(() => runsOf(history), [history]);
  const run = runs.find((r) => r.id === picked) ?? runs[runs.length - 1];
  const isLast = run !== undefined && run === runs[runs.length - 1];
  const status = useMemo(
    () => (run ? runStatus(history, run, chat.running && isLast) : new Map<string, NodeStatus>()),
    [history, run, chat.running, isLast],
  );
  const pending = useMemo(() => {
    if (!run || chat.running) return [];
    const ids = new Set(run.invocationIds);
    const byId = new Map(history.map((e) => [e.id, e]));
    return pendingCalls(history).filter((p) => ids.has(byId.get(p.eventId)?.invocationId ?? ""));
  }, [history, run, chat.running]);

  if (dot === undefined) return <p class="muted">Loading graph…</p>;
  if (!dot) return <p class="muted">The server has no graph for this app.</p>;
  return (
    <section class="graph-panel">
      <h3>Agent graph</h3>
      {runs.length > 0 ? (
        <label class="row">
          Run{" "}
          <select
            aria-label="Run"
            value={run?.id}
            onChange={(e) => setPicked((e.currentTarget as HTMLSelectElement).value)}
          >
            {runs.map((r, i) => (
              <option key={r.id} value={r.id}>
                {i + 1}. {r.label}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      {pending.length > 0 ? (
        <section class="graph-pending" aria-label="Waiting for you">
          {pending.map((p) => (
            <PendingAction
              key={p.call.id}
              pending={p}
              disabled={chat.running}
              onAnswer={(parts, eventId) => void chat.send(parts, { functionCallEventId: eventId })}
            />
          ))}
        </section>
      ) : null}
      <GraphView dot={dot} label={`Agent graph of ${app}`} status={status} onDrawn={setDrawn} />
      {status.size > 0 ? (
        <ul class="node-status" aria-label="Node status">
          {[...status]
            .filter(([node]) => drawn.has(node))
            .map(([node, s]) => (
              <li key={node} data-node={node} data-status={s}>
                <span class={`dot status-${s}`} aria-hidden="true" /> {node}: {LABELS[s]}
              </li>
            ))}
        </ul>
      ) : null}
    </section>
  );
}
