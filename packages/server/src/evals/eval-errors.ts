import { HttpRequestError } from "../errors/server-errors.js";

/** No eval set of that id in the app. */
export class EvalSetNotFoundError extends HttpRequestError {
  constructor(appName: string, evalSetId: string) {
    super(404, "EVAL_SET_NOT_FOUND", `Eval set not found: ${evalSetId} (app ${appName})`);
  }
}

/** An eval set of that id exists already (ADK answers 400). */
export class EvalSetAlreadyExistsError extends HttpRequestError {
  constructor(evalSetId: string) {
    super(400, "EVAL_SET_ALREADY_EXISTS", `Eval set already exists: ${evalSetId}`);
  }
}

/** No case of that id in the eval set. */
export class EvalCaseNotFoundError extends HttpRequestError {
  constructor(evalSetId: string, evalId: string) {
    super(404, "EVAL_CASE_NOT_FOUND", `Eval case not found: ${evalId} (eval set ${evalSetId})`);
  }
}

/** A case of that id exists already in the set (ADK answers 400). */
export class EvalCaseAlreadyExistsError extends HttpRequestError {
  constructor(evalSetId: string, evalId: string) {
    super(400, "EVAL_CASE_ALREADY_EXISTS", `Eval case ${evalId} already exists in eval set ${evalSetId}`);
  }
}

/** No stored eval result of that id. */
export class EvalResultNotFoundError extends HttpRequestError {
  constructor(appName: string, resultId: string) {
    super(404, "EVAL_RESULT_NOT_FOUND", `Eval result not found: ${resultId} (app ${appName})`);
  }
}

/** An id that cannot name a stored file (path separators, odd characters, too long). */
export class InvalidEvalIdError extends HttpRequestError {
  constructor(kind: string, id: string) {
    super(
      400,
      "INVALID_EVAL_ID",
      `Invalid ${kind} "${id}": use letters, digits, "_", "-" and "." (at most 128, starting with a letter or digit).`,
    );
  }
}

/** A metric name the server does not know (`field`: where it was named, e.g. `criteria.x`). */
export class UnknownMetricError extends HttpRequestError {
  constructor(metricName: string, known: string[], field?: string) {
    super(
      400,
      "UNKNOWN_METRIC",
      `${field ? `${field}: ` : ""}Unknown eval metric "${metricName}". Known metrics: ${known.join(", ")}.`,
    );
  }
}

/** An eval config or a metric's criterion that is not valid; the message names the field. */
export class InvalidEvalConfigError extends HttpRequestError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(400, "INVALID_EVAL_CONFIG", message, options);
  }
}
