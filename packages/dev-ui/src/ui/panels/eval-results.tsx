import { writeUrlState } from "../lib/url-state.js";
import type { Content } from "../lib/types.js";
import type { EvalInvocationJson, EvalRunResult } from "../services/api.js";

const STATUS: Record<number, string> = { 1: "passed", 2: "failed", 3: "not evaluated" };

function text(content: Content | undefined): string {
  return (content?.parts ?? [])
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");
}

function toolCalls(inv: EvalInvocationJson | undefined): string {
  const calls = inv?.intermediateData?.toolUses ?? [];
  return calls.length === 0 ? "–" : calls.map((c) => `${c.name}(${JSON.stringify(c.args ?? {})})`).join("\n");
}

/** Expected and actual of each turn, side by side, with links to the run's session and trace. */
function CaseDetail({ app, result }: { app: string; result: EvalRunResult }) {
  const rows = result.evalMetricResultPerInvocation ?? [];
  const place = result.sessionId ? { app, userId: result.userId ?? "eval_user", session: result.sessionId } : undefined;
  return (
    <details class={`eval-case-detail status-${result.finalEvalStatus}`} data-eval-id={result.evalId}>
      <summary>
        {result.evalId}: {STATUS[result.finalEvalStatus] ?? String(result.finalEvalStatus)}
      </summary>
      {place ? (
        <p class="row">
          <a href={writeUrlState(place, location.search)}>Open session</a>
          <a href={writeUrlState({ ...place, tab: "trace" }, location.search)}>Trace</a>
        </p>
      ) : null}
      {rows.map((row, i) => (
        <table key={i} class="eval-compare" aria-label={`Turn ${i + 1} of ${result.evalId}`}>
          <thead>
            <tr>
              <th />
              <th>Expected</th>
              <th>Actual</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th>User</th>
              <td colSpan={2}>{text(row.expectedInvocation.userContent)}</td>
            </tr>
            <tr data-row="tools">
              <th>Tool calls</th>
              <td>
                <pre>{toolCalls(row.expectedInvocation)}</pre>
              </td>
              <td>
                <pre>{toolCalls(row.actualInvocation)}</pre>
              </td>
            </tr>
            <tr data-row="response">
              <th>Response</th>
              <td>{text(row.expectedInvocation.finalResponse) || "–"}</td>
              <td>{text(row.actualInvocation.finalResponse) || "–"}</td>
            </tr>
          </tbody>
        </table>
      ))}
    </details>
  );
}

/** Per case: overall verdict and each metric's score against its threshold, then each case's turns. */
export function EvalResults({ results, app }: { results: EvalRunResult[]; app: string }) {
  return (
    <>
      <table class="eval-results" aria-label="Eval results">
        <thead>
          <tr>
            <th>Case</th>
            <th>Metric</th>
            <th>Score</th>
            <th>Threshold</th>
            <th>Status</th>
          </tr>
        </thead>
        <tbody>
          {results.flatMap((r) =>
            r.overallEvalMetricResults.map((m) => (
              <tr key={`${r.evalId}/${m.metricName}`} class={`status-${m.evalStatus}`} data-metric={m.metricName}>
                <td>{r.evalId}</td>
                <td>{m.metricName}</td>
                <td>{m.score === undefined ? "–" : m.score.toFixed(2)}</td>
                <td>{m.threshold}</td>
                <td>{STATUS[m.evalStatus] ?? String(m.evalStatus)}</td>
              </tr>
            )),
          )}
        </tbody>
      </table>
      {results.map((r) => (
        <CaseDetail key={r.evalId} app={app} result={r} />
      ))}
    </>
  );
}
