import { useEffect, useState } from "preact/hooks";
import type { Session } from "../lib/types.js";
import { ApiError, type Api, type EvalRunResult } from "../services/api.js";
import { EvalCaseEditor } from "./eval-case-editor.js";
import { EvalHistory } from "./eval-history.js";
import { EvalResults } from "./eval-results.js";

interface Props {
  api: Api;
  app: string;
  session?: Session;
  onError(message: string): void;
}

const DEFAULT_THRESHOLDS: Record<string, number> = { tool_trajectory_avg_score: 1, response_match_score: 0.7 };
const SAFE_ID = /^[A-Za-z0-9_-]+$/;

/**
 * Eval sets of the app (http-api.md 4.10): create one, add the open session as a case, view and
 * edit a case's expected turns, pick metrics and thresholds, run with progress, see each case's
 * expected and actual turns side by side, and browse past runs.
 */
export function EvalPanel({ api, app, session, onError }: Props) {
  const [sets, setSets] = useState<string[] | "unsupported" | undefined>();
  const [current, setCurrent] = useState<string | undefined>();
  const [cases, setCases] = useState<string[]>([]);
  const [metrics, setMetrics] = useState<string[]>([]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [thresholds, setThresholds] = useState<Record<string, number>>({ ...DEFAULT_THRESHOLDS });
  const [progress, setProgress] = useState<{ done: number; total: number } | undefined>();
  const [editing, setEditing] = useState<string | undefined>();
  const [runs, setRuns] = useState(0);
  const [showHistory, setShowHistory] = useState(false);
  const [results, setResults] = useState<EvalRunResult[] | undefined>();
  const [busy, setBusy] = useState(false);
  const [newSet, setNewSet] = useState("");

  const loadSets = async () => {
    try {
      setSets(await api.listEvalSets(app));
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) setSets("unsupported");
      else onError(`Could not list eval sets: ${(e as Error).message}`);
    }
  };
  useEffect(() => {
    setCurrent(undefined);
    setResults(undefined);
    void loadSets();
    api.metricsInfo(app).then(
      (info) => {
        const names = info.metricsInfo.map((m) => m.metricName);
        setMetrics(names);
        setChosen(new Set(names.filter((n) => n in DEFAULT_THRESHOLDS)));
      },
      () => setMetrics([]),
    );
  }, [api, app]);
  const loadCases = async (id: string) => {
    try {
      setCases(await api.listEvalCases(app, id));
    } catch (e) {
      onError(`Could not list eval cases: ${(e as Error).message}`);
    }
  };
  useEffect(() => {
    setResults(undefined);
    setEditing(undefined);
    if (current) void loadCases(current);
  }, [current]);

  const runSet = async (setId: string) => {
    const evalMetrics = [...chosen].map((metricName) => ({ metricName, threshold: thresholds[metricName] ?? 0.5 }));
    setResults(undefined);
    setProgress({ done: 0, total: cases.length });
    try {
      const result = await api.runEvalStream(app, setId, { evalCaseIds: cases, evalMetrics }, (p) =>
        setProgress({ done: p.done, total: p.total }),
      );
      setResults(result.evalCaseResults);
    } catch (e) {
      // A server without agentkit's streaming route (ADK's) still runs through run_eval.
      if (!(e instanceof ApiError && e.status === 404)) throw e;
      setResults(await api.runEval(app, setId, { evalIds: cases, evalMetrics }));
    } finally {
      setProgress(undefined);
      setRuns((n) => n + 1);
    }
  };

  const act = async (what: string, work: () => Promise<void>) => {
    setBusy(true);
    try {
      await work();
    } catch (e) {
      onError(`${what}: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  if (sets === "unsupported") return <p class="muted">This server does not offer evaluations.</p>;
  if (!sets) return <p class="muted">Loading eval sets…</p>;
  return (
    <section class="evals">
      <h3>Eval sets</h3>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          const id = newSet.trim();
          if (!SAFE_ID.test(id)) return onError("Eval set ids use letters, digits, _ and -.");
          void act("Could not create the eval set", async () => {
            await api.createEvalSet(app, id);
            setNewSet("");
            await loadSets();
            setCurrent(id);
          });
        }}
      >
        <input
          aria-label="New eval set id"
          placeholder="new eval set id"
          value={newSet}
          onInput={(e) => setNewSet((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || !newSet.trim()}>
          Create
        </button>
      </form>
      <ul class="eval-sets">
        {sets.map((s) => (
          <li key={s}>
            <button type="button" class={s === current ? "chip active" : "chip"} onClick={() => setCurrent(s)}>
              {s}
            </button>
          </li>
        ))}
      </ul>
      {current ? (
        <div class="eval-set" data-eval-set={current}>
          <h4>{current}</h4>
          <p>
            {cases.length === 0 ? (
              <span class="muted">No cases yet.</span>
            ) : (
              <>
                Cases:{" "}
                {cases.map((c) => (
                  <button
                    key={c}
                    type="button"
                    class={c === editing ? "chip active" : "chip"}
                    title="View and edit the expected turns"
                    onClick={() => setEditing(c === editing ? undefined : c)}
                  >
                    {c}
                  </button>
                ))}
              </>
            )}
          </p>
          {editing ? (
            <EvalCaseEditor
              api={api}
              app={app}
              setId={current}
              evalId={editing}
              onError={onError}
              onClose={() => setEditing(undefined)}
            />
          ) : null}
          <button
            type="button"
            disabled={busy || !session}
            title={session ? "" : "Open a session first"}
            onClick={() =>
              session &&
              void act("Could not add the session", async () => {
                const evalId = `case_${session.id.replace(/[^A-Za-z0-9]/g, "").slice(0, 8)}`;
                await api.addSessionToEvalSet(app, current, { evalId, sessionId: session.id, userId: session.userId });
                await loadCases(current);
              })
            }
          >
            Add current session
          </button>
          <fieldset class="metrics">
            <legend>Metrics</legend>
            {metrics.map((m) => (
              <label key={m}>
                <input
                  type="checkbox"
                  checked={chosen.has(m)}
                  onChange={(e) => {
                    const next = new Set(chosen);
                    if ((e.currentTarget as HTMLInputElement).checked) next.add(m);
                    else next.delete(m);
                    setChosen(next);
                  }}
                />{" "}
                {m}{" "}
                <input
                  type="number"
                  class="threshold"
                  aria-label={`Threshold of ${m}`}
                  min={0}
                  step={0.05}
                  value={thresholds[m] ?? 0.5}
                  onInput={(e) => {
                    const value = Number((e.currentTarget as HTMLInputElement).value);
                    if (Number.isFinite(value) && value >= 0) setThresholds({ ...thresholds, [m]: value });
                  }}
                />
              </label>
            ))}
          </fieldset>
          <button
            type="button"
            class="primary"
            disabled={busy || cases.length === 0 || chosen.size === 0}
            onClick={() => void act("The eval run failed", () => runSet(current))}
          >
            {busy ? "Running…" : "Run eval"}
          </button>
          {progress ? (
            <p class="eval-progress">
              <progress aria-label="Eval progress" value={progress.done} max={progress.total} /> {progress.done}/
              {progress.total} cases
            </p>
          ) : null}
          {results ? <EvalResults results={results} app={app} /> : null}
        </div>
      ) : null}
      <h3>
        <button type="button" aria-expanded={showHistory} onClick={() => setShowHistory(!showHistory)}>
          {showHistory ? "Hide past runs" : "Past runs"}
        </button>
      </h3>
      {showHistory ? <EvalHistory api={api} app={app} refresh={runs} onError={onError} /> : null}
    </section>
  );
}
