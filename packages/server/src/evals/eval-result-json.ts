import { camelToSnake, convertKeys, snakeToCamel, type KeyCaseOptions } from "@agentkit/core/internal";
import {
  EvalStatus,
  evalSetResultSchema,
  type EvalCaseResult,
  type EvalMetricResult,
  type EvalMetricResultPerInvocation,
  type EvalSetResult,
  type Invocation,
} from "./eval-types.js";

/**
 * Eval results as ADK Python writes them: `model_dump_json()` of its pydantic models, so
 * snake_case field names, every field of its models present (`null` when unset), statuses as
 * the numbers of its `EvalStatus` enum. agentkit's additions are extra fields, which ADK's
 * models allow and keep.
 */

/** User data inside results: a criterion's argument matchers name tools and argument paths. */
const SNAKE_OPTIONS: KeyCaseOptions = { opaque: new Set(["argMatchers"]), nameMaps: new Set(["models"]) };
/** Reading: a criterion and a metric's details are kept as written (details fixed below). */
const CAMEL_OPTIONS: KeyCaseOptions = {
  opaque: new Set(["criterion", "details", "argMatchers"]),
  nameMaps: new Set(["models"]),
};

const snake = (value: unknown): unknown => convertKeys(value, camelToSnake, SNAKE_OPTIONS);

/**
 * ADK's `EvalStatus` has no INFORMATIONAL: such a metric is written NOT_EVALUATED (3) with
 * `informational: true`, which agentkit reads back as INFORMATIONAL.
 */
const INFORMATIONAL_FLAG = "informational";

function metricResultToAdk(result: EvalMetricResult): Record<string, unknown> {
  const { rubricScores, ...otherDetails } = result.details ?? {};
  const informational = result.evalStatus === EvalStatus.INFORMATIONAL;
  return {
    metric_name: result.metricName,
    threshold: result.threshold ?? null,
    criterion: result.criterion === undefined ? null : snake(result.criterion),
    custom_function_path: null,
    score: result.score ?? null,
    eval_status: informational ? EvalStatus.NOT_EVALUATED : result.evalStatus,
    // ADK's EvalMetricResultDetails knows `rubric_scores`; agentkit's own details ride along untouched.
    details: { rubric_scores: rubricScores === undefined ? null : snake(rubricScores), ...otherDetails },
    ...(informational ? { [INFORMATIONAL_FLAG]: true } : {}),
  };
}

function invocationToAdk(invocation: Invocation): Record<string, unknown> {
  const { invocationId, userContent, finalResponse, intermediateData, creationTimestamp, rubrics, ...rest } =
    invocation as Invocation & Record<string, unknown>;
  return {
    invocation_id: invocationId,
    user_content: snake(userContent),
    final_response: finalResponse === undefined ? null : snake(finalResponse),
    intermediate_data: intermediateData === undefined ? null : snake(intermediateData),
    creation_timestamp: creationTimestamp,
    rubrics: rubrics === undefined ? null : snake(rubrics),
    app_details: null,
    // agentkit's `duration` and `usage`, and fields of ADK's files this version does not name.
    ...(snake(rest) as Record<string, unknown>),
  };
}

function perInvocationToAdk(entry: EvalMetricResultPerInvocation): Record<string, unknown> {
  return {
    actual_invocation: invocationToAdk(entry.actualInvocation),
    expected_invocation: entry.expectedInvocation ? invocationToAdk(entry.expectedInvocation) : null,
    eval_metric_results: entry.evalMetricResults.map(metricResultToAdk),
  };
}

function caseResultToAdk(result: EvalCaseResult): Record<string, unknown> {
  return {
    eval_set_file: result.evalSetFile,
    eval_set_id: result.evalSetId,
    eval_id: result.evalId,
    final_eval_status: result.finalEvalStatus,
    eval_metric_results: null,
    overall_eval_metric_results: result.overallEvalMetricResults.map(metricResultToAdk),
    eval_metric_result_per_invocation: result.evalMetricResultPerInvocation.map(perInvocationToAdk),
    session_id: result.sessionId,
    session_details: result.sessionDetails === undefined ? null : snake(result.sessionDetails),
    user_id: result.userId ?? null,
  };
}

/** An eval set result as the JSON object ADK Python's `EvalSetResult.model_dump_json()` gives. */
export function evalSetResultToAdkJson(result: EvalSetResult): Record<string, unknown> {
  return {
    eval_set_result_id: result.evalSetResultId,
    eval_set_result_name: result.evalSetResultName ?? null,
    eval_set_id: result.evalSetId,
    eval_case_results: result.evalCaseResults.map(caseResultToAdk),
    creation_timestamp: result.creationTimestamp,
  };
}

/**
 * Field names of a result file (ADK's snake_case, or agentkit's earlier camelCase) as the
 * camelCase the parser and the HTTP API use. A criterion stays as written; in a metric's
 * details only ADK's `rubric_scores` is renamed (the rest is the metric's own data).
 */
function evalSetResultFromWire(raw: unknown): unknown {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
  const camel = withoutNulls(convertKeys(raw, snakeToCamel, CAMEL_OPTIONS) as Record<string, unknown>);
  for (const caseResult of arrayOf(camel.evalCaseResults)) {
    withoutNulls(caseResult);
    for (const metric of arrayOf(caseResult.overallEvalMetricResults)) fixMetricResult(metric);
    for (const entry of arrayOf(caseResult.evalMetricResultPerInvocation)) {
      withoutNulls(entry);
      for (const invocation of [entry.actualInvocation, entry.expectedInvocation])
        if (typeof invocation === "object" && invocation !== null) withoutNulls(invocation as Record<string, unknown>);
      for (const metric of arrayOf(entry.evalMetricResults)) fixMetricResult(metric);
    }
  }
  return camel;
}

/** Pydantic writes every unset field as null; in the eval models null means absent. */
function withoutNulls(record: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(record)) if (value === null) delete record[key];
  return record;
}

function fixMetricResult(metric: Record<string, unknown>): void {
  withoutNulls(metric);
  if (metric[INFORMATIONAL_FLAG] === true && metric.evalStatus === EvalStatus.NOT_EVALUATED) {
    metric.evalStatus = EvalStatus.INFORMATIONAL;
    delete metric[INFORMATIONAL_FLAG];
  }
  const details = metric.details;
  if (typeof details !== "object" || details === null || Array.isArray(details)) return;
  const record = details as Record<string, unknown>;
  if ("rubric_scores" in record) {
    const { rubric_scores: scores, ...rest } = record;
    metric.details =
      scores === null || scores === undefined
        ? rest
        : { rubricScores: convertKeys(scores, snakeToCamel, CAMEL_OPTIONS), ...rest };
  }
  if (Object.keys(metric.details as object).length === 0) delete metric.details;
}

function arrayOf(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null)
    : [];
}

/**
 * Parses an eval result as ADK writes it: a JSON object, or (ADK Python's local results
 * manager) a JSON string holding the object; snake_case field names (ADK Python, agentkit) or
 * camelCase (ADK's HTTP API, agentkit's earlier files). Throws a ZodError or a SyntaxError.
 */
export function parseEvalSetResult(raw: unknown): EvalSetResult {
  const value = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
  return evalSetResultSchema.parse(evalSetResultFromWire(value)) as unknown as EvalSetResult;
}

/** A result file's text as ADK Python's local results manager writes it: a JSON string holding the JSON. */
export function evalSetResultFileText(result: EvalSetResult): string {
  return `${JSON.stringify(JSON.stringify(evalSetResultToAdkJson(result)))}\n`;
}
