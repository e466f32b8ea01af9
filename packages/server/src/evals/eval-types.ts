import {
  contentFromJson,
  type Content,
  type FunctionCall,
  type FunctionResponse,
  type Part,
  type UsageRollup,
} from "@agentkit/core";
import { z } from "zod";
import { toolSimulationSchema, type ToolSimulation } from "./tool-simulation-plugin.js";
import { wireObject } from "./wire-object.js";

export { wireObject } from "./wire-object.js";

/**
 * The eval data model in ADK's JSON shape (camelCase on the wire and on disk). Files and bodies
 * may also use snake_case field names, as ADK Python writes them: each object schema maps
 * `snake_case` keys of its own fields to camelCase (never inside free-form values such as state
 * or tool arguments). Unknown fields are kept, so a file ADK wrote round-trips.
 */

/**
 * Verdicts, as ADK numbers them. INFORMATIONAL (an agentkit addition) is a figure reported
 * without a gate, e.g. an efficiency metric without a threshold: it neither passes nor fails.
 */
export const EvalStatus = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3, INFORMATIONAL: 4 } as const;
export type EvalStatus = (typeof EvalStatus)[keyof typeof EvalStatus];

const contentSchema = z.unknown().transform((raw, ctx): Content => {
  try {
    return contentFromJson(raw);
  } catch (error) {
    ctx.addIssue({ code: "custom", message: error instanceof Error ? error.message : "invalid content" });
    return z.NEVER;
  }
});

const record = z.record(z.string(), z.unknown());

export const intermediateDataSchema = wireObject({
  toolUses: z.array(record).default([]),
  toolResponses: z.array(record).default([]),
  intermediateResponses: z.array(z.tuple([z.string(), z.array(record)])).default([]),
});

/** ADK's other intermediate data shape: the invocation's events (author and content). */
export const invocationEventsSchema = wireObject({
  invocationEvents: z.array(wireObject({ author: z.string(), content: contentSchema.optional() })),
});

export const rubricSchema = wireObject({
  rubricId: z.string().min(1),
  rubricContent: wireObject({ textProperty: z.string().min(1) }),
  description: z.string().optional(),
  type: z.string().optional(),
});

export const invocationSchema = wireObject({
  invocationId: z.string().default(""),
  userContent: contentSchema,
  finalResponse: contentSchema.optional(),
  intermediateData: z.union([invocationEventsSchema, intermediateDataSchema]).optional(),
  creationTimestamp: z.number().default(0),
  duration: z.number().min(0).optional(),
  rubrics: z.array(rubricSchema).optional(),
});

export const sessionInputSchema = wireObject({
  appName: z.string(),
  userId: z.string(),
  sessionId: z.string().optional(),
  state: record.default({}),
});

/** A simulated user's persona: a prebuilt persona id or a description. */
const userPersonaSchema = z.union([z.string().min(1), record]);

export const conversationScenarioSchema = wireObject({
  startingPrompt: z.string().min(1),
  conversationPlan: z.string().min(1),
  userPersona: userPersonaSchema.optional(),
});

export const evalCaseSchema = wireObject({
  evalId: z.string().min(1),
  conversation: z.array(invocationSchema).optional(),
  conversationScenario: conversationScenarioSchema.optional(),
  sessionInput: sessionInputSchema.optional(),
  creationTimestamp: z.number().default(0),
  rubrics: z.array(rubricSchema).optional(),
  finalSessionState: record.optional(),
  toolSimulation: toolSimulationSchema.optional(),
}).superRefine((value, ctx) => {
  // ADK's rule: a case replays a fixed conversation or plays a scenario, never both.
  const { conversation, conversationScenario } = value as { conversation?: unknown; conversationScenario?: unknown };
  if (conversation !== undefined && conversationScenario !== undefined)
    ctx.addIssue({
      code: "custom",
      path: ["conversation_scenario"],
      message: "give either conversation or conversation_scenario, not both",
    });
});

export const evalSetSchema = wireObject({
  evalSetId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  evalCases: z.array(evalCaseSchema).default([]),
  creationTimestamp: z.number().default(0),
});

/** A run's metric as the dev UIs send it: a threshold, or ADK's newer `criterion` object. */
export const evalMetricSchema = wireObject({
  metricName: z.string().min(1),
  threshold: z.number().optional(),
  criterion: record.optional(),
  customFunctionPath: z.string().min(1).optional(),
});

/** The conversation's tool activity and in-between answers (ADK's IntermediateData). */
export interface IntermediateData {
  toolUses: FunctionCall[];
  toolResponses: FunctionResponse[];
  /** `[author, parts]` of non-final text answers (sub-agents, before tool calls). */
  intermediateResponses: [string, Part[]][];
}

/** ADK's event-list form of intermediate data (read, never written by agentkit). */
export interface InvocationEvents {
  invocationEvents: { author: string; content?: Content }[];
}

/** A property a judge checks an answer or a trajectory against (ADK's Rubric). */
export interface Rubric {
  rubricId: string;
  rubricContent: { textProperty: string };
  description?: string;
  type?: string;
}

/** One user turn and what the agent did about it. */
export interface Invocation {
  invocationId: string;
  userContent: Content;
  finalResponse?: Content;
  intermediateData?: IntermediateData | InvocationEvents;
  creationTimestamp: number;
  /** Wall-clock seconds the turn took, when the eval ran it. */
  duration?: number;
  /** Rubrics for this turn only. */
  rubrics?: Rubric[];
  /** agentkit: the turn's usage (tokens, model and tool calls, cost), when the eval ran it. */
  usage?: UsageRollup;
}

export interface SessionInput {
  appName: string;
  userId: string;
  sessionId?: string;
  state: Record<string, unknown>;
}

/** A conversation a simulated user plays against the agent (ADK's ConversationScenario). */
export interface ConversationScenario {
  startingPrompt: string;
  conversationPlan: string;
  /** A prebuilt persona id or a persona object. */
  userPersona?: string | Record<string, unknown>;
}

export interface EvalCase {
  evalId: string;
  /** A fixed conversation; absent when the case has a `conversationScenario`. */
  conversation?: Invocation[];
  conversationScenario?: ConversationScenario;
  sessionInput?: SessionInput;
  creationTimestamp: number;
  /** Rubrics for every turn of the case. */
  rubrics?: Rubric[];
  finalSessionState?: Record<string, unknown>;
  /** Tools answer from rules or recordings instead of running (agentkit's extension). */
  toolSimulation?: ToolSimulation;
}

export interface EvalSet {
  evalSetId: string;
  name?: string;
  description?: string;
  evalCases: EvalCase[];
  creationTimestamp: number;
}

/**
 * A metric of a run. `threshold` is the gate (absent: an informational metric, where the
 * metric allows it); `criterion` holds the metric's options in ADK's shape (`threshold`
 * included), validated by the metric (see `parseEvalConfig`).
 */
export interface EvalMetric {
  metricName: string;
  threshold?: number;
  criterion?: Record<string, unknown>;
  /** A custom metric's function (ADK's `custom_function_path`). */
  customFunctionPath?: string;
}

export interface EvalMetricResult {
  metricName: string;
  threshold?: number;
  criterion?: Record<string, unknown>;
  score?: number;
  evalStatus: EvalStatus;
  /**
   * Why a metric was not evaluated, or what it compared: ADK's `rubricScores`, and agentkit's
   * raw judge verdicts (`judgeSamples`), matched calls, usage figures.
   */
  details?: Record<string, unknown>;
}

export interface EvalMetricResultPerInvocation {
  actualInvocation: Invocation;
  /** Absent for a scenario case (there is no reference turn). */
  expectedInvocation?: Invocation;
  evalMetricResults: EvalMetricResult[];
}

export interface EvalCaseResult {
  evalSetFile: string;
  evalSetId: string;
  evalId: string;
  finalEvalStatus: EvalStatus;
  overallEvalMetricResults: EvalMetricResult[];
  evalMetricResultPerInvocation: EvalMetricResultPerInvocation[];
  sessionId: string;
  userId: string;
  /** The session the run produced (wire JSON), for the UI's history view. */
  sessionDetails?: Record<string, unknown>;
}

export interface EvalSetResult {
  evalSetResultId: string;
  evalSetResultName: string;
  evalSetId: string;
  evalCaseResults: EvalCaseResult[];
  creationTimestamp: number;
}

/** One case's result in the legacy `run_eval` list form (ADK's RunEvalResult). */
export interface RunEvalResult extends EvalCaseResult {
  /** Deprecated pairs `[metric, result]`, kept for old clients. */
  evalMetricResults: [EvalMetric, EvalMetricResult][];
}

/** Parses an eval set from JSON (camelCase or snake_case fields); throws a ZodError. */
export function parseEvalSet(raw: unknown): EvalSet {
  return evalSetSchema.parse(raw) as unknown as EvalSet;
}

const metricResultSchema = wireObject({
  metricName: z.string(),
  threshold: z.number().nullish(),
  score: z.number().nullish(),
  evalStatus: z.number().int().min(1).max(4),
  details: record.nullish(),
});

export const evalSetResultSchema = wireObject({
  evalSetResultId: z.string().min(1),
  evalSetResultName: z.string().nullish(),
  evalSetId: z.string(),
  evalCaseResults: z
    .array(
      wireObject({
        evalSetFile: z.string().default(""),
        evalSetId: z.string().default(""),
        evalId: z.string().default(""),
        finalEvalStatus: z.number().int().min(1).max(4),
        overallEvalMetricResults: z.array(metricResultSchema).default([]),
        evalMetricResultPerInvocation: z
          .array(
            wireObject({
              actualInvocation: invocationSchema,
              expectedInvocation: invocationSchema.nullish(),
              evalMetricResults: z.array(metricResultSchema).default([]),
            }),
          )
          .default([]),
        sessionId: z.string().default(""),
        userId: z.string().nullish(),
      }),
    )
    .default([]),
  creationTimestamp: z.number().default(0),
});
