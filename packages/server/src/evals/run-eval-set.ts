import { randomUUID } from "node:crypto";
import { sessionToJson, type BaseSessionService, type Content, type Event, type Runner } from "@agentkit/core";
import type { EvalMetricDefinition } from "./eval-metrics.js";
import type { EvalCase, EvalCaseResult, EvalMetric, EvalSet, EvalSetResult, Invocation } from "./eval-types.js";
import { invocationFromEvents } from "./invocations-from-events.js";
import { mapBounded } from "./map-bounded.js";
import { scoreEvalCase } from "./score-eval-case.js";
import type { ToolSimulationPlugin } from "./tool-simulation-plugin.js";
import { nextSimulatedUserMessage, type UserSimulatorOptions } from "./user-simulator.js";

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
  /** Cancels the run: no new case starts, running agents are stopped, the call rejects. */
  signal?: AbortSignal;
  /** Cases run at once (default 1); each runs on its own session. */
  parallel?: number;
  /** Called as cases start and finish (e.g. a progress bar); exceptions it throws are ignored. */
  onProgress?: (progress: EvalProgress) => void;
  /** Plays the user of `conversationScenario` cases; without it they are not evaluated. */
  userSimulator?: UserSimulatorOptions;
  /** Installed in `runner`'s plugins: serves the `toolSimulation` of cases. */
  toolSimulator?: ToolSimulationPlugin;
}

/** A case started or finished; `done` of `total` cases have finished. */
export type EvalProgress =
  | { kind: "case_started"; evalId: string; done: number; total: number }
  | { kind: "case_finished"; evalId: string; done: number; total: number; result: EvalCaseResult };

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
  const total = cases.length;
  let done = 0;
  const report = (progress: EvalProgress) => {
    try {
      options.onProgress?.(progress);
    } catch {
      // A broken progress display must not fail the run.
    }
  };
  const results = await mapBounded(cases, options.parallel ?? 1, async (evalCase) => {
    options.signal?.throwIfAborted();
    report({ kind: "case_started", evalId: evalCase.evalId, done, total });
    const result = await runEvalCase(options, evalCase);
    done += 1;
    report({ kind: "case_finished", evalId: evalCase.evalId, done, total, result });
    return result;
  });
  options.signal?.throwIfAborted();
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
  const scenario = evalCase.conversationScenario;
  // Why the case could not be scored at all (not a failure of the agent).
  let notRun =
    scenario && !options.userSimulator
      ? "the case is a conversation scenario: running it needs a user simulator model " +
        "(agentkit eval: user_simulator_config in test_config.json; agentkit web: --user-simulator-model)"
      : evalCase.toolSimulation && !options.toolSimulator
        ? "the case simulates tools: the runner needs the tool simulation plugin"
        : undefined;
  const release =
    evalCase.toolSimulation && options.toolSimulator && !notRun
      ? options.toolSimulator.simulate(session.id, evalCase.toolSimulation, evalCase.conversation)
      : undefined;
  const runTurn = async (userContent: Content) => {
    const events: Event[] = [];
    for await (const event of options.runner.runAsync({
      userId,
      sessionId: session.id,
      newMessage: userContent,
      signal: options.signal,
    })) {
      events.push(event);
    }
    actual.push(invocationFromEvents(userContent, events));
  };
  try {
    if (notRun) {
      // Nothing to run.
    } else if (scenario && options.userSimulator) {
      const limit = options.userSimulator.maxAllowedInvocations ?? 20;
      let next: string | undefined = scenario.startingPrompt;
      while (next !== undefined && (limit < 0 || actual.length < limit)) {
        await runTurn({ role: "user", parts: [{ text: next }] });
        if (limit >= 0 && actual.length >= limit) break;
        try {
          next = await nextSimulatedUserMessage(options.userSimulator, scenario, actual, options.signal);
        } catch (error) {
          options.signal?.throwIfAborted();
          notRun = error instanceof Error ? error.message : String(error);
          break;
        }
      }
    } else {
      for (const expected of evalCase.conversation ?? []) await runTurn(expected.userContent);
    }
  } catch (error) {
    options.signal?.throwIfAborted();
    failure = `the agent run failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    release?.();
  }

  const scores = await scoreEvalCase({
    evalCase,
    actual,
    metrics: options.metrics,
    definitions: options.definitions,
    ...(failure ? { failure } : {}),
    ...(notRun ? { notRun } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const stored = await options.sessionService.getSession({ appName: options.appName, userId, sessionId: session.id });
  return {
    ...base,
    ...scores,
    ...(stored ? { sessionDetails: sessionToJson(stored) } : {}),
  };
}
