import type { EvalCase, Invocation, Rubric } from "../eval-types.js";
import { textOf } from "../invocation-data.js";
import { rubricsCriterionSchema, type RubricsCriterion } from "./criteria.js";
import { judged, type JudgePool } from "./judge-pool.js";
import { conversationTranscript, toolActivity } from "./judge-prompts.js";
import {
  defineMetric,
  UNIT_INTERVAL,
  type EvalMetricDefinition,
  type InvocationScore,
  type MetricInput,
  type MetricOutput,
} from "./metric-definition.js";
import {
  meanRubricScores,
  RUBRIC_ANSWER_FORMAT,
  rubricList,
  scoreRubrics,
  type RubricScore,
} from "./rubric-verdicts.js";

/** The rubrics that apply to a turn: the criterion's, the case's, and the reference turn's own. */
function rubricsFor(criterion: RubricsCriterion, evalCase: EvalCase | undefined, turn?: Invocation): Rubric[] {
  const all = [...criterion.rubrics, ...(evalCase?.rubrics ?? []), ...(turn?.rubrics ?? [])];
  const seen = new Set<string>();
  return all.filter((r) => !seen.has(r.rubricId) && seen.add(r.rubricId));
}

/** Asks the judge about rubrics, `num_samples` times, and scores the majority verdicts. */
async function judgeRubrics(
  judges: JudgePool,
  input: MetricInput<RubricsCriterion>,
  rubrics: Rubric[],
  task: string,
): Promise<InvocationScore> {
  const options = input.criterion.judgeModelOptions;
  const judge = judges.resolve(options);
  if ("unavailable" in judge) return { notEvaluated: judge.unavailable };
  if (rubrics.length === 0)
    return { notEvaluated: "needs rubrics: give them in the criterion, the eval case or the turn" };
  return judged(input.signal, async () => {
    const prompt = [
      task,
      `Decide for each property below whether it holds.\n${rubricList(rubrics)}`,
      RUBRIC_ANSWER_FORMAT,
    ].join("\n\n");
    const samples = await judges.sample(judge, prompt, {
      samples: options.numSamples,
      config: options.judgeModelConfig,
      signal: input.signal,
    });
    const scored = scoreRubrics(rubrics, samples);
    const judgeSamples = samples.map((s) => ({ raw: s.raw }));
    if (!scored) return { notEvaluated: `the judge answered none of the rubrics: ${samples[0]?.raw.slice(0, 200)}` };
    return { score: scored.score, details: { rubricScores: scored.rubricScores, judgeSamples } };
  });
}

/** The overall verdict of per-turn rubric scores: their mean, with the mean per rubric. */
function overallOf(perInvocation: InvocationScore[]): InvocationScore {
  const scored = perInvocation.filter((v): v is { score: number; details?: Record<string, unknown> } => "score" in v);
  const skipped = perInvocation.find((v): v is { notEvaluated: string } => "notEvaluated" in v);
  if (skipped) return skipped;
  if (scored.length === 0) return { notEvaluated: "the case has no invocations to judge" };
  const rubricScores = meanRubricScores(scored.map((v) => (v.details?.rubricScores ?? []) as RubricScore[]));
  return { score: scored.reduce((a, v) => a + v.score, 0) / scored.length, details: { rubricScores } };
}

function perTurnRubricMetric(
  judges: JudgePool,
  metricName: string,
  description: string,
  task: (turn: Invocation, history: Invocation[]) => string,
): EvalMetricDefinition<RubricsCriterion> {
  return defineMetric<RubricsCriterion>({
    info: { metricName, description, metricValueInfo: { interval: UNIT_INTERVAL } },
    unavailableReason: judges.unavailableReason && `${metricName} ${judges.unavailableReason}`,
    criterionSchema: rubricsCriterionSchema,
    defaultThreshold: 0.8,
    async evaluateInvocations(input): Promise<MetricOutput> {
      const perInvocation: InvocationScore[] = [];
      for (const [i, turn] of input.actual.entries()) {
        input.signal?.throwIfAborted();
        const rubrics = rubricsFor(input.criterion, input.evalCase, input.expected?.[i]);
        perInvocation.push(await judgeRubrics(judges, input, rubrics, task(turn, input.actual.slice(0, i))));
      }
      return { perInvocation, overall: overallOf(perInvocation) };
    },
  });
}

function earlier(history: Invocation[]): string {
  return history.length > 0 ? `Earlier in the conversation:\n${conversationTranscript(history)}\n\n` : "";
}

/** `rubric_based_final_response_quality_v1`: a judge checks each final answer against rubrics. */
export function rubricFinalResponseQualityMetric(judges: JudgePool) {
  return perTurnRubricMetric(
    judges,
    "rubric_based_final_response_quality_v1",
    "An LLM judge checks each final response against the rubrics (criterion, case and turn); the score is the " +
      "share of rubrics met, by majority of num_samples verdicts.",
    (turn, history) =>
      `You review the answer an AI agent gave a user.\n\n${earlier(history)}User: ${textOf(turn.userContent)}\n\n` +
      `What the agent did with its tools:\n${toolActivity(turn)}\n\nAgent's final answer: ${textOf(turn.finalResponse)}`,
  );
}

/** `rubric_based_tool_use_quality_v1`: a judge checks each turn's tool calls against rubrics. */
export function rubricToolUseQualityMetric(judges: JudgePool) {
  return perTurnRubricMetric(
    judges,
    "rubric_based_tool_use_quality_v1",
    "An LLM judge checks each turn's tool calls and their arguments against the rubrics; the score is the share " +
      "of rubrics met, by majority of num_samples verdicts.",
    (turn, history) =>
      `You review how an AI agent used its tools to serve a user.\n\n${earlier(history)}` +
      `User: ${textOf(turn.userContent)}\n\nThe agent's tool calls and their results, in order:\n${toolActivity(turn)}`,
  );
}

/** `multi_turn_trajectory_quality_v1`: a judge checks the whole conversation against rubrics. */
export function multiTurnTrajectoryQualityMetric(judges: JudgePool) {
  return defineMetric<RubricsCriterion>({
    info: {
      metricName: "multi_turn_trajectory_quality_v1",
      description:
        "An LLM judge checks the whole conversation (every turn's messages, tool calls and answers) against the " +
        "rubrics; one verdict per case, the share of rubrics met.",
      metricValueInfo: { interval: UNIT_INTERVAL },
    },
    unavailableReason: judges.unavailableReason && `multi_turn_trajectory_quality_v1 ${judges.unavailableReason}`,
    criterionSchema: rubricsCriterionSchema,
    defaultThreshold: 0.8,
    async evaluateInvocations(input): Promise<MetricOutput> {
      const scenario = input.evalCase?.conversationScenario;
      const goal = scenario ? `The user's plan for the conversation: ${scenario.conversationPlan}\n\n` : "";
      const overall = await judgeRubrics(
        judges,
        input,
        rubricsFor(input.criterion, input.evalCase),
        `You review a whole conversation between a user and an AI agent, turn by turn, including the agent's tool ` +
          `calls.\n\n${goal}${conversationTranscript(input.actual)}`,
      );
      // One verdict for the conversation: no per-turn rows.
      return { perInvocation: [], overall };
    },
  });
}
