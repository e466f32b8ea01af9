import { useEffect, useState } from "preact/hooks";
import type { Api, EvalSetResultJson } from "../services/api.js";
import { EvalResults } from "./eval-results.js";

const STATUS: Record<number, string> = { 1: "passed", 2: "failed", 3: "not evaluated" };

/** Past runs of the app's eval sets (newest first); one opens to its per-case results. */
export function EvalHistory({
  api,
  app,
  refresh,
  onError,
}: {
  api: Api;
  app: string;
  /** Changes when a run finished, to list it. */
  refresh: number;
  onError(message: string): void;
}) {
  const [ids, setIds] = useState<string[]>([]);
  const [open, setOpen] = useState<EvalSetResultJson | undefined>();

  useEffect(() => {
    api.listEvalResults(app).then(
      // Ids end with the run's timestamp: newest first.
      (list) => setIds([...list].sort((a, b) => timestampOf(b) - timestampOf(a))),
      (e: Error) => onError(`Could not list past runs: ${e.message}`),
    );
  }, [api, app, refresh]);

  if (ids.length === 0) return <p class="muted">No runs yet.</p>;
  return (
    <div class="eval-history">
      <ul aria-label="Past eval runs">
        {ids.map((id) => (
          <li key={id}>
            <button
              type="button"
              class={open?.evalSetResultId === id ? "chip active" : "chip"}
              onClick={() =>
                api.getEvalResult(app, id).then(setOpen, (e: Error) => onError(`Could not load the run: ${e.message}`))
              }
            >
              {id}
            </button>
          </li>
        ))}
      </ul>
      {open ? (
        <div class="eval-history-run" data-result-id={open.evalSetResultId}>
          <p>
            {open.evalSetId}, {new Date(open.creationTimestamp * 1000).toLocaleString()}:{" "}
            {open.evalCaseResults
              .map((c) => `${c.evalId} ${STATUS[c.finalEvalStatus] ?? c.finalEvalStatus}`)
              .join(", ")}
          </p>
          <EvalResults results={open.evalCaseResults} app={app} />
        </div>
      ) : null}
    </div>
  );
}

function timestampOf(id: string): number {
  const n = Number(/_(\d+(?:\.\d+)?)$/.exec(id)?.[1]);
  return Number.isFinite(n) ? n : 0;
}
