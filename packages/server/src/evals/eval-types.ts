import { contentFromJson, type Content, type FunctionCall, type FunctionResponse, type Part } from "@agentkit/core";
import { z } from "zod";

/**
 * The eval data model in ADK's JSON shape (camelCase on the wire and on disk). Request bodies
 * may also use snake_case field names: each object schema maps `snake_case` keys of its own
 * fields to camelCase (never inside free-form values such as state or tool arguments).
 */

/** Verdicts, as ADK numbers them. */
export const EvalStatus = { PASSED: 1, FAILED: 2, NOT_EVALUATED: 3 } as const;
export type EvalStatus = (typeof EvalStatus)[keyof typeof EvalStatus];

function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/** An object schema that also accepts its fields in snake_case; unknown keys are kept. */
export function wireObject<T extends z.ZodRawShape>(shape: T) {
  const fields = new Set(Object.keys(shape));
  return z.preprocess((raw) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) {
      const camel = snakeToCamel(key);
      if (camel !== key && fields.has(camel)) {
        if (!(camel in raw)) out[camel] = value;
      } else out[key] = value;
    }
    return out;
  }, z.looseObject(shape));
}

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

export const invocationSchema = wireObject({
  invocationId: z.string().default(""),
  userContent: contentSchema,
  finalResponse: contentSchema.optional(),
  intermediateData: intermediateDataSchema.optional(),
  creationTimestamp: z.number().default(0),
});

export const sessionInputSchema = wireObject({
  appName: z.string(),
  userId: z.string(),
  state: record.default({}),
});

export const evalCaseSchema = wireObject({
  evalId: z.string().min(1),
  conversation: z.array(invocationSchema).default([]),
  sessionInput: sessionInputSchema.optional(),
  creationTimestamp: z.number().default(0),
});

export const evalSetSchema = wireObject({
  evalSetId: z.string().min(1),
  name: z.string().optional(),
  description: z.string().optional(),
  evalCases: z.array(evalCaseSchema).default([]),
  creationTimestamp: z.number().default(0),
});

export const evalMetricSchema = wireObject({
  metricName: z.string().min(1),
  threshold: z.number().min(0).default(1),
});

/** The conversation's tool activity and in-between answers (ADK's IntermediateData). */
export interface IntermediateData {
  toolUses: FunctionCall[];
  toolResponses: FunctionResponse[];
  /** `[author, parts]` of non-final text answers (sub-agents, before tool calls). */
  intermediateResponses: [string, Part[]][];
}

/** One user turn and what the agent did about it. */
export interface Invocation {
  invocationId: string;
  userContent: Content;
  finalResponse?: Content;
  intermediateData?: IntermediateData;
  creationTimestamp: number;
}

export interface SessionInput {
  appName: string;
  userId: string;
  state: Record<string, unknown>;
}

export interface EvalCase {
  evalId: string;
  conversation: Invocation[];
  sessionInput?: SessionInput;
  creationTimestamp: number;
}

export interface EvalSet {
  evalSetId: string;
  name?: string;
  description?: string;
  evalCases: EvalCase[];
  creationTimestamp: number;
}

export interface EvalMetric {
  metricName: string;
  threshold: number;
}

export interface EvalMetricResult {
  metricName: string;
  threshold: number;
  score?: number;
  evalStatus: EvalStatus;
  /** Why a metric was not evaluated, or what it compared. */
  details?: Record<string, unknown>;
}

export interface EvalMetricResultPerInvocation {
  actualInvocation: Invocation;
  expectedInvocation: Invocation;
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
