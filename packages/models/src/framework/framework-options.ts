import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import type { FrameworkCallMetrics } from "./call-observer.js";

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
  /**
   * Receives one record per model call when `observability.enabled` (default sink:
   * `console.debug`). Exceptions thrown by the hook are ignored.
   */
  onMetrics?: (metrics: FrameworkCallMetrics) => void;
};

/** The adapter properties with defaults filled in. */
export interface FrameworkSettings {
  temperature?: number;
  maxTokens?: number;
  topK?: number;
  topP?: number;
  observability: z.output<typeof observabilitySchema>;
  validation: z.output<typeof validationSchema>;
  onMetrics?: (metrics: FrameworkCallMetrics) => void;
}

/** Validates the adapter properties; bad values throw `ConfigurationError` naming the field. */
export function parseFrameworkOptions(adapter: string, options: FrameworkOptions): FrameworkSettings {
  const { onMetrics, ...rest } = options;
  const picked = {
    temperature: rest.temperature,
    maxTokens: rest.maxTokens,
    topK: rest.topK,
    topP: rest.topP,
    observability: rest.observability,
    validation: rest.validation,
  };
  const result = frameworkOptionsSchema.safeParse(picked);
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join(".") || "(options)"}: ${i.message}`).join("; ");
    throw new ConfigurationError(`Invalid ${adapter} options: ${issues}.`, { cause: result.error });
  }
  if (onMetrics !== undefined && typeof onMetrics !== "function") {
    throw new ConfigurationError(`Invalid ${adapter} options: onMetrics must be a function.`);
  }
  const data = result.data;
  const settings: FrameworkSettings = {
    observability: data.observability ?? observabilitySchema.parse({}),
    validation: data.validation ?? validationSchema.parse({}),
  };
  if (data.temperature !== undefined) settings.temperature = data.temperature;
  if (data.maxTokens !== undefined) settings.maxTokens = data.maxTokens;
  if (data.topK !== undefined) settings.topK = data.topK;
  if (data.topP !== undefined) settings.topP = data.topP;
  if (onMetrics !== undefined) settings.onMetrics = onMetrics;
  return settings;
}

/** Sampling for one call: the request's generation config wins, the adapter properties fill in. */
export interface SamplingSettings {
  temperature?: number;
  maxTokens?: number;
  topK?: number;
  topP?: number;
}

export function effectiveSampling(
  settings: FrameworkSettings,
  config: { temperature?: number; maxOutputTokens?: number; topK?: number; topP?: number },
): SamplingSettings {
  const out: SamplingSettings = {};
  const temperature = config.temperature ?? settings.temperature;
  const maxTokens = config.maxOutputTokens ?? settings.maxTokens;
  const topK = config.topK ?? settings.topK;
  const topP = config.topP ?? settings.topP;
  if (temperature !== undefined) out.temperature = temperature;
  if (maxTokens !== undefined) out.maxTokens = maxTokens;
  if (topK !== undefined) out.topK = topK;
  if (topP !== undefined) out.topP = topP;
  return out;
}
