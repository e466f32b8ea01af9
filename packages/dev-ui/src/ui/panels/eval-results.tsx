import type { EvalRunResult } from "../services/api.js";

const STATUS: Record<number, string> = { 1: "passed", 2: "failed", 3: "not evaluated" };

/** Per case: overall verdict and each metric's score against its threshold. */
export function EvalResults({ results }: { results: EvalRunResult[] }) {
  return (
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
  );
}
