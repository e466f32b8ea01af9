/**
 * Content and parts in the Gemini (`@google/genai`) shape. Structurally identical to the
 * genai types, so values pass between agentkit and that SDK without conversion, while core
 * keeps no dependency on it.
 */

export interface Blob {
  /** Base64 data (standard alphabet when emitted; both alphabets accepted on input). */
  data?: string;
  mimeType?: string;
  displayName?: string;
}

export interface FileData {
  fileUri?: string;
  mimeType?: string;
  displayName?: string;
}

export interface FunctionCall {
  id?: string;
  name?: string;
  args?: Record<string, unknown>;
  /** Streaming function-call arguments (Gemini 3); passed through untouched. */
  partialArgs?: unknown[];
  willContinue?: boolean;
}

export interface FunctionResponse {
  id?: string;
  name?: string;
  response?: Record<string, unknown>;
  willContinue?: boolean;
  scheduling?: string;
  parts?: unknown[];
}

export interface ExecutableCode {
  code?: string;
  language?: string;
}

export interface CodeExecutionResult {
  outcome?: string;
  output?: string;
}

export interface VideoMetadata {
  startOffset?: string;
  endOffset?: string;
  fps?: number;
}

export interface Part {
  text?: string;
  thought?: boolean;
  /** Opaque base64 signature a model needs back on the next turn (Gemini thinking). */
  thoughtSignature?: string;
  inlineData?: Blob;
  fileData?: FileData;
  functionCall?: FunctionCall;
  functionResponse?: FunctionResponse;
  executableCode?: ExecutableCode;
  codeExecutionResult?: CodeExecutionResult;
  videoMetadata?: VideoMetadata;
  mediaResolution?: unknown;
}

export interface Content {
  role?: string;
  parts?: Part[];
}

/** Builds a `{ role, parts: [{ text }] }` content. */
export function createTextContent(text: string, role: "user" | "model" = "user"): Content {
  return { role, parts: [{ text }] };
}

/** Builds a user content from text (or returns the content as is). */
export function createUserContent(input: string | Content): Content {
  return typeof input === "string" ? createTextContent(input, "user") : input;
}

/** Concatenated text of a content's non-thought text parts. */
export function getTextOf(content: Content | undefined): string {
  if (!content?.parts) return "";
  return content.parts
    .filter((p) => typeof p.text === "string" && !p.thought)
    .map((p) => p.text)
    .join("");
}
