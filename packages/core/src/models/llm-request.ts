import type { Content } from "../content/content.js";
import type { FunctionDeclaration, GenerateContentConfig, Schema } from "../content/generate-content-config.js";
import type { BaseTool } from "../tools/base-tool.js";

/** Live (BIDI) session settings passed to `BaseLlm.connect`. */
export interface LiveConnectConfig {
  responseModalities?: string[];
  speechConfig?: Record<string, unknown>;
  inputAudioTranscription?: Record<string, unknown>;
  outputAudioTranscription?: Record<string, unknown>;
  realtimeInputConfig?: Record<string, unknown>;
  proactivity?: Record<string, unknown>;
  enableAffectiveDialog?: boolean;
  sessionResumption?: Record<string, unknown>;
  contextWindowCompression?: Record<string, unknown>;
  [key: string]: unknown;
}

/** Context-cache settings an app may set (see `App.contextCacheConfig`). */
export interface ContextCacheConfig {
  /** Reuse a cache for at most this many invocations before refreshing it. */
  cacheIntervals?: number;
  /** Cache lifetime in seconds. */
  ttlSeconds?: number;
  /** Only cache requests estimated at or above this many tokens. */
  minTokens?: number;
}

/** What the flow asks a model for. Plain data; a model may read any field. */
export interface LlmRequest {
  /** Model name as the agent configured it. */
  model?: string;
  contents: Content[];
  config: GenerateContentConfig;
  liveConnectConfig?: LiveConnectConfig;
  /** Tools offered in this request, by name (the flow runs them). */
  toolsDict: Record<string, BaseTool>;
  cacheConfig?: ContextCacheConfig;
  /** Cache state from a previous response, for adapters that reuse caches. */
  cacheMetadata?: Record<string, unknown>;
  /** Invocations since the cache was made (maintained by the flow). */
  cacheableContentsTokenCount?: number;
}

export function createLlmRequest(init: Partial<LlmRequest> = {}): LlmRequest {
  return { contents: [], config: {}, toolsDict: {}, ...init };
}

/** Appends instruction texts to the request's system instruction (blank-line separated). */
export function appendInstructions(request: LlmRequest, instructions: string[]): void {
  if (!instructions.some((t) => t.length > 0)) return;
  const current = request.config.systemInstruction;
  let text = typeof current === "string" ? current : (current?.parts?.map((p) => p.text ?? "").join("") ?? "");
  // Joined as it goes (every request appends a few): no arrays made per call.
  for (const t of instructions) if (t.length > 0) text = text.length > 0 ? `${text}\n\n${t}` : t;
  request.config.systemInstruction = text;
}

/** The system instruction as plain text ("" when none). */
export function getSystemInstructionText(request: LlmRequest): string {
  const si = request.config.systemInstruction;
  if (!si) return "";
  return typeof si === "string" ? si : (si.parts ?? []).map((p) => p.text ?? "").join("");
}

/** Adds function declarations of tools to the request and records the tools by name. */
export function appendTools(request: LlmRequest, tools: readonly BaseTool[]): void {
  appendDeclaredTools(request, tools, ownDeclaration);
}

const ownDeclaration = (tool: BaseTool): FunctionDeclaration | undefined => tool.getDeclaration();

/**
 * `appendTools` with each tool's declaration given by `declarationOf`: the flow's request builder
 * passes one that lends shared frozen declarations (`flows/shared-declarations.ts`).
 */
export function appendDeclaredTools(
  request: LlmRequest,
  tools: readonly BaseTool[],
  declarationOf: (tool: BaseTool) => FunctionDeclaration | undefined,
): void {
  const declarations: FunctionDeclaration[] = [];
  for (const tool of tools) {
    request.toolsDict[tool.name] = tool;
    const decl = declarationOf(tool);
    if (decl) declarations.push(decl);
  }
  if (declarations.length === 0) return;
  request.config.tools ??= [];
  const holder = request.config.tools.find((t) => Array.isArray(t.functionDeclarations));
  if (holder) holder.functionDeclarations!.push(...declarations);
  else request.config.tools.push({ functionDeclarations: declarations });
}

/** Asks for JSON output matching the schema. */
export function setOutputSchema(request: LlmRequest, schema: Schema | Record<string, unknown>): void {
  request.config.responseMimeType = "application/json";
  request.config.responseJsonSchema = schema;
}
