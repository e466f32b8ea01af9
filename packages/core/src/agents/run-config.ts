import type { SpeechConfig } from "../content/generate-content-config.js";
import type { Budget } from "../usage/budget.js";

/** How events reach the caller. */
export const StreamingMode = {
  /** One complete event per model response. */
  NONE: "none",
  /** Partial events while the model streams, then the complete event. */
  SSE: "sse",
  /** Live, bidirectional (audio/video) through a `LiveRequestQueue`. */
  BIDI: "bidi",
} as const;
export type StreamingMode = (typeof StreamingMode)[keyof typeof StreamingMode];

/** How several function calls of one model turn are executed. */
export const ToolExecutionMode = {
  /** Concurrently; responses still returned in call order. */
  PARALLEL: "parallel",
  /** One after another, in call order. */
  SEQUENTIAL: "sequential",
} as const;
export type ToolExecutionMode = (typeof ToolExecutionMode)[keyof typeof ToolExecutionMode];

export interface AudioTranscriptionConfig {
  languageCodes?: string[];
  [key: string]: unknown;
}

/** Options of one run. Every field is optional; defaults are listed per field. */
export interface RunConfig {
  /** Default `StreamingMode.NONE`. */
  streamingMode?: StreamingMode;
  /** Default `ToolExecutionMode.PARALLEL`. */
  toolExecutionMode?: ToolExecutionMode;
  /** Model calls allowed per invocation (default 500); 0 or less disables the limit. */
  maxLlmCalls?: number;
  /** Create the session on first use instead of failing with `SessionNotFoundError` (default false). */
  autoCreateSession?: boolean;
  /** Store inline data of the user message as artifacts and reference them instead (default false). */
  saveInputBlobsAsArtifacts?: boolean;
  /** Live: voice and language of spoken output. */
  speechConfig?: SpeechConfig;
  /** Live: transcribe the user's audio. */
  inputAudioTranscription?: AudioTranscriptionConfig;
  /** Live: transcribe the model's audio. */
  outputAudioTranscription?: AudioTranscriptionConfig;
  /** Live: `["AUDIO"]` or `["TEXT"]`. */
  responseModalities?: string[];
  /** Live: realtime input settings (voice activity detection, ...). */
  realtimeInputConfig?: Record<string, unknown>;
  /** Live: let the model answer only when relevant. */
  proactivity?: Record<string, unknown>;
  enableAffectiveDialog?: boolean;
  sessionResumption?: Record<string, unknown>;
  contextWindowCompression?: Record<string, unknown>;
  /** Attached to every event of the run as `customMetadata`. */
  customMetadata?: Record<string, unknown>;
  /** Enable context-window compression support in live mode. */
  supportCfc?: boolean;
  /**
   * Usage limits of this run, over the app's (`App.budget`) field by field; checked before
   * every model call (see `Budget` and docs/usage-and-budgets.md).
   */
  budget?: Budget;
}

export const DEFAULT_MAX_LLM_CALLS = 500;

/** The config with its defaults filled in. */
export type ResolvedRunConfig = RunConfig & {
  streamingMode: StreamingMode;
  toolExecutionMode: ToolExecutionMode;
  maxLlmCalls: number;
  autoCreateSession: boolean;
  saveInputBlobsAsArtifacts: boolean;
};

export function resolveRunConfig(config: RunConfig = {}): ResolvedRunConfig {
  return {
    ...config,
    streamingMode: config.streamingMode ?? StreamingMode.NONE,
    toolExecutionMode: config.toolExecutionMode ?? ToolExecutionMode.PARALLEL,
    maxLlmCalls: config.maxLlmCalls ?? DEFAULT_MAX_LLM_CALLS,
    autoCreateSession: config.autoCreateSession ?? false,
    saveInputBlobsAsArtifacts: config.saveInputBlobsAsArtifacts ?? false,
  };
}
