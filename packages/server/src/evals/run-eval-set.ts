import { randomUUID } from "node:crypto";
import { sessionToJson, type BaseSessionService, type Event, type Runner } from "@agentkit/core";
import type { EvalMetricDefinition } from "./eval-metrics.js";
import type { EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, Invocation } from "./eval-types.js";
import { invocationFromEvents } from "./invocations-from-events.js";
import { scoreEvalCase } from "./score-eval-case.js";

export interface RunEvalSetOptions {
  runner: Runner;
  sessionService: BaseSessionService;
  appName: string;
  evalSet: EvalSet;
  /** Cases to run (default all), in the set's order. */
  evalCaseIds?: string[];
  metrics: EvalMetric[];
  definitions: ReadonlyMap<string, EvalMetricDefinition>;
  /** User for cases without a session input (default "eval_user"). */
  defaultUserId?: string;
  signal?: AbortSignal;
}

/** Prefix of the sessions eval runs create (ADK's), so they are easy to tell apart. */
export const EVAL_SESSION_PREFIX = "___eval___session___";

/**
 * Runs the cases of an eval set: each case replays its user turns through the app's runner on
 * a fresh session (with the case's initial state), then `scoreEvalCase` scores the turns with
 * every metric (per turn and overall, against the thresholds and criteria).
 */
export async function runEvalSet(options: RunEvalSetOptions): Promise<EvalSetResult> {
  const wanted = options.evalCaseIds && options.evalCaseIds.length > 0 ? new Set(options.evalCaseIds) : undefined;
  const cases = options.evalSet.evalCases.filter((c) => !wanted || wanted.has(c.evalId));
  const results: EvalCaseResult[] = [];
  for (const evalCase of cases) {
    options.signal?.throwIfAborted();
    results.push(await runEvalCase(options, evalCase));
  }
  const now = Date.now() / 1000;
  const id = `${options.appName}_${options.evalSet.evalSetId}_${now.toFixed(3)}`;
  return {
    evalSetResultId: id,
    evalSetResultName: id,
    evalSetId: options.evalSet.evalSetId,
    evalCaseResults: results,
    creationTimestamp: now,
  };
}

async function runEvalCase(options: RunEvalSetOptions, evalCase: EvalCase): Promise<EvalCaseResult> {
  const userId = evalCase.sessionInput?.userId ?? options.defaultUserId ?? "eval_user";
  const session = await options.sessionService.createSession({
    appName: options.appName,
    userId,
    sessionId: `${EVAL_SESSION_PREFIX}${randomUUID()}`,
    state: structuredClone(evalCase.sessionInput?.state ?? {}),
  });
  const base = {
    evalSetFile: options.evalSet.evalSetId,
    evalSetId: options.evalSet.evalSetId,
    evalId: evalCase.evalId,
    sessionId: session.id,
    userId,
  };
  const actual: Invocation[] = [];
  let failure: string | undefined;
  try {
    for (const expected of evalCase.conversation ?? []) {
      const events: Event[] = [];
      for await (const event of options.runner.runAsync({
        userId,
        sessionId: session.id,
        newMessage: expected.userContent,
        signal: options.signal,
      })) {
        events.push(event);
      }
      actual.push(invocationFromEvents(expected.userContent, events));
    }
  } catch (error) {
    options.signal?.throwIfAborted();
    failure = `the agent run failed: ${error instanceof Error ? error.message : String(error)}`;
  }

  const scores = await scoreEvalCase({
    evalCase,
    actual,
    metrics: options.metrics,
    definitions: options.definitions,
    ...(failure ? { failure } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const stored = await options.sessionService.getSession({ appName: options.appName, userId, sessionId: session.id });
  return {
    ...base,
    ...scores,
    ...(stored ? { sessionDetails: sessionToJson(stored) } : {}),
  };
}
