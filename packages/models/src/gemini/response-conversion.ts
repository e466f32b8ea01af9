import type { GenerateContentResponse } from "@google/genai";
import type { LlmResponse, Part, UsageMetadata } from "@agentkit/core";
import { GenAiFieldMissingError } from "../errors/genai-field-missing-error.js";
import { isBlockingFinishReason, toFinishReason } from "./finish-reason.js";

type Candidate = NonNullable<GenerateContentResponse["candidates"]>[number];

/** A complete `generateContent` response → one complete `LlmResponse`. */
export function fromGeminiResponse(response: GenerateContentResponse): LlmResponse {
  const candidate = response.candidates?.[0];
  const parts = (candidate?.content?.parts ?? []).map(copyPart);
  const result = baseResponse(response, candidate, parts);
  if (!result.content && !result.errorCode && !result.finishReason) {
    throw new GenAiFieldMissingError("candidates[0].content", "the Gemini response");
  }
  return result;
}

/** Usage metadata as agentkit keeps it (thoughts and cached tokens included). */
export function toUsageMetadata(usage: GenerateContentResponse["usageMetadata"]): UsageMetadata | undefined {
  if (!usage) return undefined;
  const out: UsageMetadata = {};
  const u = usage as Record<string, unknown>;
  for (const key of [
    "promptTokenCount",
    "candidatesTokenCount",
    "totalTokenCount",
    "cachedContentTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
    "promptTokensDetails",
    "candidatesTokensDetails",
    "cacheTokensDetails",
    "toolUsePromptTokensDetails",
    "trafficType",
  ] as const) {
    if (u[key] !== undefined && u[key] !== null) (out as Record<string, unknown>)[key] = u[key];
  }
  return out;
}

function baseResponse(response: GenerateContentResponse, candidate: Candidate | undefined, parts: Part[]): LlmResponse {
  const result: LlmResponse = {};
  if (parts.length > 0) result.content = { role: "model", parts };
  const finishReason = toFinishReason(candidate?.finishReason);
  if (finishReason) result.finishReason = finishReason;
  const usage = toUsageMetadata(response.usageMetadata);
  if (usage) result.usageMetadata = usage;
  if (candidate?.groundingMetadata)
    result.groundingMetadata = { ...candidate.groundingMetadata } as Record<string, unknown>;
  if (candidate?.citationMetadata)
    result.citationMetadata = { ...candidate.citationMetadata } as Record<string, unknown>;
  if (candidate?.avgLogprobs !== undefined) result.avgLogprobs = candidate.avgLogprobs;
  if (candidate?.logprobsResult) result.logprobsResult = { ...candidate.logprobsResult } as Record<string, unknown>;
  if (response.modelVersion) result.modelVersion = response.modelVersion;
  const block = response.promptFeedback?.blockReason;
  if (!candidate && block) {
    result.errorCode = block;
    result.errorMessage = response.promptFeedback?.blockReasonMessage ?? `Gemini blocked the prompt (${block}).`;
  } else if (isBlockingFinishReason(finishReason)) {
    result.errorCode = finishReason!;
    result.errorMessage = candidate?.finishMessage ?? `Gemini stopped the response (${finishReason}).`;
  }
  return result;
}

function copyPart(part: Part): Part {
  const copy: Part = {};
  for (const [key, value] of Object.entries(part))
    if (value !== undefined && value !== null) (copy as Record<string, unknown>)[key] = value;
  return copy;
}

function isPlainText(part: Part): boolean {
  return (
    typeof part.text === "string" &&
    Object.keys(part).every((k) => k === "text" || k === "thought" || k === "thoughtSignature")
  );
}

/**
 * Folds `streamGenerateContent` chunks: each text (or thought) piece is yielded as a partial
 * response as it arrives; `complete()` gives one response with every part (adjacent text of
 * the same kind merged, thought signatures kept), the last usage, finish reason and grounding.
 */
export class GeminiStreamAccumulator {
  private readonly parts: Part[] = [];
  private last: GenerateContentResponse | undefined;
  private candidate: Candidate | undefined;
  private finishReason: string | undefined;
  private blocked = false;
  private usage: GenerateContentResponse["usageMetadata"];
  private grounding: Candidate["groundingMetadata"];
  private citations: Candidate["citationMetadata"];

  /** True once a chunk carried a finish reason (or a prompt block): the stream is complete. */
  get finished(): boolean {
    return this.finishReason !== undefined || this.blocked;
  }

  /** Applies one chunk; returns the partial responses to yield. */
  apply(chunk: GenerateContentResponse): LlmResponse[] {
    this.last = chunk;
    if (chunk.usageMetadata) this.usage = chunk.usageMetadata;
    if (!chunk.candidates?.length && chunk.promptFeedback?.blockReason) this.blocked = true;
    const candidate = chunk.candidates?.[0];
    if (!candidate) return [];
    this.candidate = candidate;
    if (candidate.groundingMetadata) this.grounding = candidate.groundingMetadata;
    if (candidate.citationMetadata) this.citations = candidate.citationMetadata;
    const reason = toFinishReason(candidate.finishReason);
    if (reason) this.finishReason = reason;
    const partials: LlmResponse[] = [];
    for (const raw of candidate.content?.parts ?? []) {
      const part = copyPart(raw);
      this.merge(part);
      if (typeof part.text === "string" && part.text.length > 0 && isPlainText(part)) {
        partials.push({
          content: { role: "model", parts: [part.thought ? { text: part.text, thought: true } : { text: part.text }] },
          partial: true,
        });
      }
    }
    return partials;
  }

  /** The complete response from everything seen so far. */
  complete(): LlmResponse {
    const response = { ...(this.last ?? {}), usageMetadata: this.usage } as GenerateContentResponse;
    const candidate = this.candidate
      ? {
          ...this.candidate,
          finishReason: this.finishReason,
          groundingMetadata: this.grounding,
          citationMetadata: this.citations,
        }
      : undefined;
    return baseResponse(response, candidate as Candidate | undefined, this.parts);
  }

  private merge(part: Part): void {
    const previous = this.parts.at(-1);
    if (
      previous &&
      isPlainText(previous) &&
      isPlainText(part) &&
      Boolean(previous.thought) === Boolean(part.thought) &&
      !previous.thoughtSignature
    ) {
      previous.text = (previous.text ?? "") + (part.text ?? "");
      if (part.thoughtSignature) previous.thoughtSignature = part.thoughtSignature;
      return;
    }
    // A signature sent on an empty text part belongs to the part before it.
    if (
      previous &&
      isPlainText(previous) &&
      isPlainText(part) &&
      part.text === "" &&
      part.thoughtSignature &&
      !previous.thoughtSignature
    ) {
      previous.thoughtSignature = part.thoughtSignature;
      return;
    }
    this.parts.push(part);
  }
}
