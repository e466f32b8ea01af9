import { textOf } from "../invocation-data.js";
import { userSimulatorCriterionSchema, type UserSimulatorCriterion } from "./criteria.js";
import { judged, type JudgePool } from "./judge-pool.js";
import { conversationTranscript, majority, readValidity } from "./judge-prompts.js";
import { defineMetric, UNIT_INTERVAL, type InvocationScore } from "./metric-definition.js";

/**
 * `per_turn_user_simulator_quality_v1`: for a scenario case, a judge decides whether each
 * simulated user message (every turn after the fixed starting prompt) follows the conversation
 * plan and persona, and ends the conversation with the stop signal only when the plan is done.
 */
export function perTurnUserSimulatorQualityMetric(judges: JudgePool) {
  return defineMetric<UserSimulatorCriterion>({
    info: {
      metricName: "per_turn_user_simulator_quality_v1",
      description:
        "For conversation_scenario cases: an LLM judge decides whether each simulated user turn follows the plan " +
        "and persona (majority of num_samples); the score is the share of valid turns.",
      metricValueInfo: { interval: UNIT_INTERVAL },
    },
    unavailableReason: judges.unavailableReason && `per_turn_user_simulator_quality_v1 ${judges.unavailableReason}`,
    criterionSchema: userSimulatorCriterionSchema,
    defaultThreshold: 0.8,
    async evaluateInvocations(input) {
      const scenario = input.evalCase?.conversationScenario;
      if (!scenario) {
        const reason = { notEvaluated: "needs a conversation_scenario case (a simulated user)" };
        return { perInvocation: input.actual.map(() => reason), overall: reason };
      }
      const options = input.criterion.judgeModelOptions;
      const judge = judges.resolve(options);
      const persona =
        scenario.userPersona === undefined
          ? ""
          : `The user's persona: ${typeof scenario.userPersona === "string" ? scenario.userPersona : JSON.stringify(scenario.userPersona)}\n\n`;
      const perInvocation: InvocationScore[] = [{ notEvaluated: "the starting prompt is fixed by the scenario" }];
      for (let i = 1; i < input.actual.length; i++) {
        input.signal?.throwIfAborted();
        if ("unavailable" in judge) {
          perInvocation.push({ notEvaluated: judge.unavailable });
          continue;
        }
        const message = textOf(input.actual[i]!.userContent);
        perInvocation.push(
          await judged(input.signal, async () => {
            const prompt = [
              "A program plays a user talking to an AI agent, following a conversation plan. Judge the user's latest " +
                "message: it is valid when it pursues the plan's next step (or answers the agent's question from " +
                "the plan), stays in persona, invents nothing the plan does not give, and says " +
                `"${input.criterion.stopSignal}" only once the plan is complete (and then says nothing else of substance).`,
              `${persona}The conversation plan: ${scenario.conversationPlan}`,
              `The conversation so far:\n${conversationTranscript(input.actual.slice(0, i))}`,
              `The user's latest message: ${message}`,
              'Explain briefly, then end with one word on its own line: "valid" or "invalid".',
            ].join("\n\n");
            const samples = await judges.sample(judge, prompt, {
              samples: options.numSamples,
              config: options.judgeModelConfig,
              signal: input.signal,
            });
            const verdicts = samples.map((s) => readValidity(s.raw));
            const vote = majority(verdicts);
            const judgeSamples = samples.map((s, n) => ({ raw: s.raw, verdict: verdicts[n] ?? null }));
            if (!vote) return { notEvaluated: `the judge's answers were neither valid nor invalid` };
            return { score: vote.score, details: { votes: { valid: vote.yes, invalid: vote.no }, judgeSamples } };
          }),
        );
      }
      const judgedTurns = perInvocation.slice(1);
      const skipped = judgedTurns.find((v): v is { notEvaluated: string } => "notEvaluated" in v);
      const scores = judgedTurns.flatMap((v) => ("score" in v ? [v.score] : []));
      const overall: InvocationScore = skipped
        ? skipped
        : scores.length === 0
          ? { notEvaluated: "the conversation has no simulated user turn (only the starting prompt)" }
          : { score: scores.reduce((a, b) => a + b, 0) / scores.length };
      return { perInvocation, overall };
    },
  });
}
