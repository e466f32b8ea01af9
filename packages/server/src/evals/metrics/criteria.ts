import { z } from "zod";
import { rubricSchema, wireObject, type Rubric } from "../eval-types.js";

/**
 * Criterion schemas in ADK's shape (`test_config.json` criteria, a run's `criterion`), snake_case
 * or camelCase. Unknown keys are kept, as ADK's criteria allow extra fields.
 */

export const baseCriterionSchema = wireObject({ threshold: z.number().optional() });

/** Options of an LLM judge (ADK's JudgeModelOptions). */
export interface JudgeModelOptions {
  /** A model name the model registry resolves; absent: the server's default judge. */
  judgeModel?: string;
  /** Samples per verdict (ADK's default: 5). */
  numSamples: number;
  /** Generation settings for the judge (ADK's GenerateContentConfig, camelCase or snake_case). */
  judgeModelConfig?: Record<string, unknown>;
}

export const DEFAULT_JUDGE_SAMPLES = 5;

const judgeModelOptionsSchema = wireObject({
  judgeModel: z.string().min(1).optional(),
  numSamples: z.number().int().min(1).max(25).default(DEFAULT_JUDGE_SAMPLES),
  judgeModelConfig: z.record(z.string(), z.unknown()).optional(),
});

export interface JudgeCriterion {
  threshold?: number;
  judgeModelOptions: JudgeModelOptions;
}

const judgeShape = {
  threshold: z.number().optional(),
  judgeModelOptions: judgeModelOptionsSchema.default({ numSamples: DEFAULT_JUDGE_SAMPLES }),
};

export const judgeCriterionSchema = wireObject(judgeShape) as unknown as z.ZodType<JudgeCriterion>;

export interface RubricsCriterion extends JudgeCriterion {
  rubrics: Rubric[];
}

export const rubricsCriterionSchema = wireObject({
  ...judgeShape,
  rubrics: z.array(rubricSchema).default([]),
}) as unknown as z.ZodType<RubricsCriterion>;

export interface HallucinationsCriterion extends JudgeCriterion {
  evaluateIntermediateNlResponses: boolean;
}

export const hallucinationsCriterionSchema = wireObject({
  ...judgeShape,
  evaluateIntermediateNlResponses: z.boolean().default(false),
}) as unknown as z.ZodType<HallucinationsCriterion>;

export interface UserSimulatorCriterion extends JudgeCriterion {
  stopSignal: string;
}

export const userSimulatorCriterionSchema = wireObject({
  ...judgeShape,
  stopSignal: z.string().min(1).default("</finished>"),
}) as unknown as z.ZodType<UserSimulatorCriterion>;

/** How one argument is compared. */
export type ArgMatcher =
  | { type: "exact" }
  | { type: "ignore" }
  | { type: "numeric"; tolerance: number }
  | { type: "regex"; pattern: string; flags?: string };

const argMatcherSchema = z.union([
  z.enum(["exact", "ignore"]).transform((type) => ({ type })),
  z.discriminatedUnion("type", [
    z.object({ type: z.literal("exact") }),
    z.object({ type: z.literal("ignore") }),
    z.object({ type: z.literal("numeric"), tolerance: z.number().min(0).default(0) }),
    z
      .object({
        type: z.literal("regex"),
        pattern: z.string(),
        flags: z
          .string()
          .regex(/^[imsu]*$/)
          .optional(),
      })
      .superRefine((m, ctx) => {
        try {
          new RegExp(m.pattern, `${m.flags ?? ""}u`);
        } catch (error) {
          ctx.addIssue({ code: "custom", path: ["pattern"], message: (error as Error).message });
        }
      }),
  ]),
]) as unknown as z.ZodType<ArgMatcher>;

export const MATCH_TYPES = ["EXACT", "IN_ORDER", "ANY_ORDER"] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export const TRAJECTORY_SCORING = ["binary", "precision", "recall", "f1"] as const;
export type TrajectoryScoring = (typeof TRAJECTORY_SCORING)[number];

export interface TrajectoryCriterion {
  threshold?: number;
  matchType: MatchType;
  /** Compare tool names only. */
  ignoreArgs: boolean;
  /** `binary` (ADK: all or nothing) or partial credit over calls. */
  scoring: TrajectoryScoring;
  /** Per tool name (`*`: every tool), per argument path (`a.b`): how to compare. */
  argMatchers: Record<string, Record<string, ArgMatcher>>;
}

export const trajectoryCriterionSchema = wireObject({
  threshold: z.number().optional(),
  // ADK writes the enum's name ("IN_ORDER"), its number (1), or a loose spelling ("in-order").
  matchType: z
    .preprocess(
      (v) =>
        typeof v === "number"
          ? MATCH_TYPES[v]
          : typeof v === "string"
            ? v.trim().toUpperCase().replace(/[- ]/g, "_")
            : v,
      z.enum(MATCH_TYPES),
    )
    .default("EXACT"),
  ignoreArgs: z.boolean().default(false),
  scoring: z.enum(TRAJECTORY_SCORING).default("binary"),
  argMatchers: z.record(z.string(), z.record(z.string(), argMatcherSchema)).default({}),
}) as unknown as z.ZodType<TrajectoryCriterion>;
