import type { Content } from "../content/content.js";
import type { Transcription, UsageMetadata } from "../content/generate-content-config.js";

/** One response (or streamed chunk) from a model. Plain data; models may yield literals. */
export interface LlmResponse {
  content?: Content;
  /** A streamed chunk; a complete response follows. */
  partial?: boolean;
  /** The model finished its turn (live mode). */
  turnComplete?: boolean;
  finishReason?: string;
  usageMetadata?: UsageMetadata;
  errorCode?: string;
  errorMessage?: string;
  groundingMetadata?: Record<string, unknown>;
  citationMetadata?: Record<string, unknown>;
  customMetadata?: Record<string, unknown>;
  /** The user interrupted the model (live mode). */
  interrupted?: boolean;
  avgLogprobs?: number;
  logprobsResult?: Record<string, unknown>;
  modelVersion?: string;
  cacheMetadata?: Record<string, unknown>;
  inputTranscription?: Transcription;
  outputTranscription?: Transcription;
  liveSessionResumptionUpdate?: Record<string, unknown>;
}
