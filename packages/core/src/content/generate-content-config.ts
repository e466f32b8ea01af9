/**
 * Model request configuration in the Gemini shape (the subset agentkit reads, plus an
 * index signature so provider-specific keys pass through).
 */

/** JSON-schema-like schema as Gemini accepts it (`type` in upper or lower case). */
export interface Schema {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  nullable?: boolean;
  enum?: unknown[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  anyOf?: Schema[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number | string;
  maxItems?: number | string;
  minLength?: number | string;
  maxLength?: number | string;
  pattern?: string;
  [key: string]: unknown;
}

export interface FunctionDeclaration {
  name: string;
  description?: string;
  /** Gemini-style schema. */
  parameters?: Schema;
  /** Plain JSON Schema; adapters prefer it when present. */
  parametersJsonSchema?: unknown;
  response?: Schema;
  responseJsonSchema?: unknown;
  /** Set for long-running tools (informational for models that support it). */
  behavior?: string;
}

export interface Tool {
  functionDeclarations?: FunctionDeclaration[];
  googleSearch?: Record<string, unknown>;
  googleSearchRetrieval?: Record<string, unknown>;
  googleMaps?: Record<string, unknown>;
  urlContext?: Record<string, unknown>;
  codeExecution?: Record<string, unknown>;
  retrieval?: Record<string, unknown>;
  computerUse?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ThinkingConfig {
  includeThoughts?: boolean;
  thinkingBudget?: number;
  thinkingLevel?: string;
}

export interface SpeechConfig {
  voiceConfig?: { prebuiltVoiceConfig?: { voiceName?: string } };
  languageCode?: string;
  [key: string]: unknown;
}

export interface GenerateContentConfig {
  systemInstruction?: import("./content.js").Content | string;
  temperature?: number;
  topP?: number;
  topK?: number;
  candidateCount?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  responseMimeType?: string;
  responseSchema?: Schema;
  responseJsonSchema?: unknown;
  tools?: Tool[];
  toolConfig?: Record<string, unknown>;
  safetySettings?: Record<string, unknown>[];
  thinkingConfig?: ThinkingConfig;
  labels?: Record<string, string>;
  cachedContent?: string;
  responseModalities?: string[];
  speechConfig?: SpeechConfig;
  abortSignal?: AbortSignal;
  httpOptions?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ModalityTokenCount {
  modality?: string;
  tokenCount?: number;
}

export interface UsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  totalTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  promptTokensDetails?: ModalityTokenCount[];
  candidatesTokensDetails?: ModalityTokenCount[];
  cacheTokensDetails?: ModalityTokenCount[];
  toolUsePromptTokensDetails?: ModalityTokenCount[];
  trafficType?: string;
}

export interface Transcription {
  text?: string;
  finished?: boolean;
}

/** Known finish reasons (providers may send others; the field stays a string). */
export const FinishReason = {
  FINISH_REASON_UNSPECIFIED: "FINISH_REASON_UNSPECIFIED",
  STOP: "STOP",
  MAX_TOKENS: "MAX_TOKENS",
  SAFETY: "SAFETY",
  RECITATION: "RECITATION",
  LANGUAGE: "LANGUAGE",
  OTHER: "OTHER",
  BLOCKLIST: "BLOCKLIST",
  PROHIBITED_CONTENT: "PROHIBITED_CONTENT",
  SPII: "SPII",
  MALFORMED_FUNCTION_CALL: "MALFORMED_FUNCTION_CALL",
  IMAGE_SAFETY: "IMAGE_SAFETY",
  UNEXPECTED_TOOL_CALL: "UNEXPECTED_TOOL_CALL",
} as const;
export type FinishReason = (typeof FinishReason)[keyof typeof FinishReason] | (string & {});
