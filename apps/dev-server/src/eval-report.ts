import { EvalStatus, type EvalCaseResult, type EvalMetricResult, type EvalSetResult } from "@agentkit/server/devtools";
import type { EvalRegression } from "./eval-baseline.js";

/** One eval set's results with the app they ran against and each case's wall time. */
export interface EvalRunReport {
  appName: string;
  result: EvalSetResult;
  /** Seconds per eval id. */
  durations: Record<string, number>;
}

const STATUS_LABEL: Record<number, string> = {
  [EvalStatus.PASSED]: "PASS",
  [EvalStatus.FAILED]: "FAIL",
  [EvalStatus.NOT_EVALUATED]: "N/E",
};

function score(m: EvalMetricResult): string {
  if (m.evalStatus === EvalStatus.NOT_EVALUATED || typeof m.score !== "number") return "n/e";
  if (m.threshold === undefined) return m.score.toFixed(2);
  return `${m.score.toFixed(2)} ${m.evalStatus === EvalStatus.PASSED ? ">=" : "<"} ${m.threshold.toFixed(2)}`;
}

/** Why a case did not pass, one line each: failed metrics, metrics not evaluated (with the reason). */
export function caseProblems(c: EvalCaseResult): string[] {
  const problems: string[] = [];
  for (const m of c.overallEvalMetricResults) {
    if (m.evalStatus === EvalStatus.FAILED) problems.push(`${m.metricName}: ${score(m)}`);
    else if (m.evalStatus === EvalStatus.NOT_EVALUATED)
      problems.push(`${m.metricName}: not evaluated (${String(m.details?.reason ?? "no reason given")})`);
  }
  if (c.finalEvalStatus !== EvalStatus.PASSED && problems.length === 0)
    problems.push(`status ${STATUS_LABEL[c.finalEvalStatus] ?? c.finalEvalStatus}`);
  return problems;
}

/**
 * The readable summary: a row per case (status, set, case, each metric's score against its
 * threshold), why failing cases failed, regressions against the baseline, and the counts.
 */
export function formatEvalTable(reports: readonly EvalRunReport[], regressions: readonly EvalRegression[]): string {
  const metricNames = [
    ...new Set(
      reports
        .flatMap((r) => r.result.evalCaseResults.flatMap((c) => c.overallEvalMetricResults))
        .map((m) => m.metricName),
    ),
  ];
  const header = ["STATUS", "EVAL SET", "CASE", ...metricNames];
  const rows: { cells: string[]; notes: string[] }[] = [];
  for (const { result } of reports)
    for (const c of result.evalCaseResults) {
      const byName = new Map(c.overallEvalMetricResults.map((m) => [m.metricName, m]));
      rows.push({
        cells: [
          STATUS_LABEL[c.finalEvalStatus] ?? String(c.finalEvalStatus),
          result.evalSetId,
          c.evalId,
          ...metricNames.map((n) => {
            const m = byName.get(n);
            return m ? score(m) : "-";
          }),
        ],
        notes: c.finalEvalStatus === EvalStatus.PASSED ? [] : caseProblems(c),
      });
    }
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r.cells[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  const out = [line(header)];
  for (const row of rows) {
    out.push(line(row.cells));
    for (const note of row.notes) out.push(`      - ${note}`);
  }
  const cases = rows.length;
  const count = (status: number) =>
    reports.reduce((n, r) => n + r.result.evalCaseResults.filter((c) => c.finalEvalStatus === status).length, 0);
  if (regressions.length > 0) {
    out.push("", `Regressions against the baseline (${regressions.length}):`);
    for (const r of regressions)
      out.push(
        `  ${r.evalSetId}/${r.evalId} ${r.metricName}: ${r.baseline.toFixed(2)} -> ` +
          `${Number.isNaN(r.current) ? "n/e" : r.current.toFixed(2)} (allowed drop ${r.allowed})`,
      );
  }
  out.push(
    "",
    `${cases} case${cases === 1 ? "" : "s"}: ${count(EvalStatus.PASSED)} passed, ${count(EvalStatus.FAILED)} failed, ` +
      `${count(EvalStatus.NOT_EVALUATED)} not evaluated` +
      (regressions.length > 0 ? `, ${regressions.length} regression${regressions.length === 1 ? "" : "s"}` : ""),
  );
  return `${out.join("\n")}\n`;
}

function xml(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&apos;")
    .split("")
    .filter((ch) => {
      // XML 1.0 has no way to write most control characters: drop them.
      const code = ch.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join("");
}

/**
 * JUnit XML (the format CI systems show as test reports): a testsuite per eval set, a testcase
 * per case; a case that did not pass, or regressed, carries a <failure> saying why.
 */
export function evalJunitXml(reports: readonly EvalRunReport[], regressions: readonly EvalRegression[]): string {
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  for (const { appName, result, durations } of reports) {
    const cases: string[] = [];
    let suiteFailures = 0;
    let suiteTime = 0;
    for (const c of result.evalCaseResults) {
      const problems = c.finalEvalStatus === EvalStatus.PASSED ? [] : caseProblems(c);
      const regressed = regressions.filter((r) => r.evalSetId === result.evalSetId && r.evalId === c.evalId);
      for (const r of regressed)
        problems.push(`regression: ${r.metricName} ${r.baseline.toFixed(2)} -> ${r.current.toFixed(2)}`);
      const time = durations[c.evalId] ?? 0;
      suiteTime += time;
      const open = `    <testcase classname="${xml(`${appName}.${result.evalSetId}`)}" name="${xml(c.evalId)}" time="${time.toFixed(3)}"`;
      if (problems.length === 0) cases.push(`${open}/>`);
      else {
        suiteFailures += 1;
        const type =
          c.finalEvalStatus === EvalStatus.NOT_EVALUATED
            ? "NOT_EVALUATED"
            : regressed.length && c.finalEvalStatus === EvalStatus.PASSED
              ? "REGRESSION"
              : "FAILED";
        cases.push(
          `${open}>\n      <failure type="${type}" message="${xml(problems[0]!)}">${xml(problems.join("\n"))}</failure>\n    </testcase>`,
        );
      }
    }
    tests += result.evalCaseResults.length;
    failures += suiteFailures;
    suites.push(
      `  <testsuite name="${xml(`${appName}/${result.evalSetId}`)}" tests="${result.evalCaseResults.length}" ` +
        `failures="${suiteFailures}" errors="0" skipped="0" time="${suiteTime.toFixed(3)}" ` +
        `timestamp="${new Date(result.creationTimestamp * 1000).toISOString().slice(0, 19)}">\n${cases.join("\n")}\n  </testsuite>`,
    );
  }
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n` +
    `<testsuites name="agentkit eval" tests="${tests}" failures="${failures}" errors="0">\n${suites.join("\n")}\n</testsuites>\n`
  );
}

/** A one-line progress bar redrawn in place on a terminal; `done()` clears it. */
export function progressBar(stream: NodeJS.WritableStream & { columns?: number }) {
  let drawn = false;
  return {
    update(done: number, total: number, running: number): void {
      const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - 40));
      const filled = total === 0 ? width : Math.round((done / total) * width);
      stream.write(
        `\r\u001b[K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} cases` +
          (running > 0 ? ` (${running} running)` : ""),
      );
      drawn = true;
    },
    done(): void {
      if (drawn) stream.write("\r\u001b[K");
      drawn = false;
    },
  };
}
