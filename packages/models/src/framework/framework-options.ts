import { z } from "zod";

/** Per-call metrics recorded when observability is enabled. */
export interface FrameworkCallMetrics {
  latencyMs: number;
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** Present only when `observability.includeContent` is true. */
  request?: unknown;
  response?: unknown;
}

const observabilitySchema = z.object({
  enabled: z.boolean().default(false),
  includeContent: z.boolean().default(false),
  metricsEnabled: z.boolean().default(true),
});

const validationSchema = z.object({
  enabled: z.boolean().default(false),
  failFast: z.boolean().default(true),
});

/** Adapter properties shared by the third-party framework adapters (LangChain.js, AI SDK). */
export const frameworkOptionsSchema = z.object({
  temperature: z.number().min(0).optional(),
  maxTokens: z.number().int().positive().optional(),
  topK: z.number().int().positive().optional(),
  topP: z.number().min(0).max(1).optional(),
  observability: observabilitySchema.optional(),
  validation: validationSchema.optional(),
});

export type FrameworkOptions = z.input<typeof frameworkOptionsSchema> & {
  onMetrics?: (metrics: FrameworkCallMetrics) => void;
};
export type ResolvedFrameworkOptions = z.output<typeof frameworkOptionsSchema>;
