import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4Usage,
} from "@ai-sdk/provider";
import { FinishReason, type LlmResponse, type Part, type UsageMetadata } from "@agentkit/core";
import { parseToolArgs } from "../framework/call-id-pairer.js";
import type { ConversionIssues } from "../framework/conversion-issues.js";
import { encodeThoughtSignature, mergeMetadata } from "./thought-signature.js";

/** The unified AI SDK finish reason in the Gemini shape. */
export function mapAiSdkFinishReason(reason: LanguageModelV4FinishReason | string | undefined): string | undefined {
  const unified = typeof reason === "string" ? reason : reason?.unified;
  switch (unified) {
    case undefined:
      return undefined;
    case "stop":
    case "tool-calls":
      return FinishReason.STOP;
    case "length":
      return FinishReason.MAX_TOKENS;
    case "content-filter":
      return FinishReason.SAFETY;
    default:
      return FinishReason.OTHER;
  }
}

export function toUsageMetadata(usage: LanguageModelV4Usage | undefined): UsageMetadata | undefined {
  if (!usage) return undefined;
  const input = usage.inputTokens?.total;
  const output = usage.outputTokens?.total;
  if (input === undefined && output === undefined) return undefined;
  const metadata: UsageMetadata = {};
  if (input !== undefined) metadata.promptTokenCount = input;
  if (output !== undefined) metadata.candidatesTokenCount = output;
  metadata.totalTokenCount = (input ?? 0) + (output ?? 0);
  if (usage.inputTokens.cacheRead !== undefined && usage.inputTokens.cacheRead > 0)
    metadata.cachedContentTokenCount = usage.inputTokens.cacheRead;
  if (usage.outputTokens.reasoning !== undefined && usage.outputTokens.reasoning > 0)
    metadata.thoughtsTokenCount = usage.outputTokens.reasoning;
  return metadata;
}

interface RawCall {
  id: string;
  name: string;
  input: string;
}

/**
 * Assembles the final response. Calls whose input is not a JSON object are reported to
 * `issues` (validation on: `MessageConversionError`); otherwise they keep `args: {}` and the
 * response gets `errorCode: "MALFORMED_FUNCTION_CALL"`, so the flow answers the model.
 */
function buildResponse(
  parts: Part[],
  calls: RawCall[],
  finishReason: LanguageModelV4FinishReason | undefined,
  usage: LanguageModelV4Usage | undefined,
  modelId: string | undefined,
  issues: ConversionIssues,
): LlmResponse {
  const malformed: string[] = [];
  calls.forEach((call, i) => {
    let args = parseToolArgs(call.input);
    if (args === undefined) {
      issues.report(`toolCalls[${i}] (${call.name})`, `the model sent input that is not a JSON object: ${call.input}`);
      malformed.push(`${call.name}: ${call.input}`);
      args = {};
    }
    parts.push({ functionCall: { id: call.id, name: call.name, args } });
  });
  issues.settle();
  const response: LlmResponse = {};
  if (parts.length > 0) response.content = { role: "model", parts };
  const reason = mapAiSdkFinishReason(finishReason);
  if (reason !== undefined) response.finishReason = reason;
  const usageMetadata = toUsageMetadata(usage);
  if (usageMetadata) response.usageMetadata = usageMetadata;
  if (modelId) response.modelVersion = modelId;
  if (malformed.length > 0) {
    response.errorCode = "MALFORMED_FUNCTION_CALL";
    response.errorMessage = `The model sent function-call arguments that are not a JSON object: ${malformed.join("; ")}`;
  }
  return response;
}

/** Converts one `doGenerate` result into a complete response (provider-executed tools are left out). */
export function fromAiSdkResult(result: LanguageModelV4GenerateResult, issues: ConversionIssues): LlmResponse {
  const parts: Part[] = [];
  const calls: RawCall[] = [];
  for (const item of result.content as LanguageModelV4Content[]) {
    if (item.type === "text") {
      if (item.text.length > 0) appendText(parts, item.text, false);
    } else if (item.type === "reasoning") {
      const signature = encodeThoughtSignature(item.providerMetadata);
      if (signature !== undefined) parts.push({ text: item.text, thought: true, thoughtSignature: signature });
      else if (item.text.length > 0) appendText(parts, item.text, true);
    } else if (item.type === "tool-call") {
      if (!item.providerExecuted) calls.push({ id: item.toolCallId, name: item.toolName, input: item.input });
    } else if (item.type === "file" && item.data.type === "data") {
      const data = typeof item.data.data === "string" ? item.data.data : Buffer.from(item.data.data).toString("base64");
      parts.push({ inlineData: { mimeType: item.mediaType, data } });
    }
  }
  return buildResponse(parts, calls, result.finishReason, result.usage, result.response?.modelId, issues);
}

/** Adjacent text of the same kind (answer or thought) is merged into one part. */
function appendText(parts: Part[], text: string, thought: boolean): void {
  const last = parts.at(-1);
  if (
    last &&
    typeof last.text === "string" &&
    (last.thought === true) === thought &&
    last.thoughtSignature === undefined
  ) {
    last.text += text;
    return;
  }
  parts.push(thought ? { text, thought: true } : { text });
}

/**
 * Folds `doStream` parts: `push` returns a partial response for each text or reasoning delta;
 * tool inputs are assembled from `tool-input-*` deltas (by id, in order of first appearance)
 * and completed by the `tool-call` part; `finish` carries usage and the finish reason. An
 * `error` part is thrown by the caller.
 */
export class AiSdkStreamAccumulator {
  private readonly parts: Part[] = [];
  private readonly calls = new Map<string, RawCall & { complete: boolean }>();
  /** Open reasoning blocks: their part in `parts` and the provider metadata seen so far. */
  private readonly reasoning = new Map<
    string,
    { part: Part; metadata: Record<string, Record<string, unknown>> | undefined }
  >();
  private finishReason: LanguageModelV4FinishReason | undefined;
  private usage: LanguageModelV4Usage | undefined;
  private modelId: string | undefined;
  finished = false;

  constructor(private readonly issues: ConversionIssues) {}

  push(part: LanguageModelV4StreamPart): LlmResponse | undefined {
    switch (part.type) {
      case "text-delta":
        if (part.delta.length === 0) return undefined;
        appendText(this.parts, part.delta, false);
        return { content: { role: "model", parts: [{ text: part.delta }] }, partial: true };
      case "reasoning-start": {
        const block = {
          part: { text: "", thought: true } as Part,
          metadata: mergeMetadata(undefined, part.providerMetadata),
        };
        this.reasoning.set(part.id, block);
        this.parts.push(block.part);
        return undefined;
      }
      case "reasoning-delta": {
        const block = this.reasoning.get(part.id);
        if (block) {
          block.part.text = (block.part.text ?? "") + part.delta;
          block.metadata = mergeMetadata(block.metadata, part.providerMetadata);
        } else if (part.delta.length > 0) appendText(this.parts, part.delta, true);
        if (part.delta.length === 0) return undefined;
        return { content: { role: "model", parts: [{ text: part.delta, thought: true }] }, partial: true };
      }
      case "reasoning-end": {
        const block = this.reasoning.get(part.id);
        if (!block) return undefined;
        this.reasoning.delete(part.id);
        const signature = encodeThoughtSignature(mergeMetadata(block.metadata, part.providerMetadata));
        if (signature !== undefined) block.part.thoughtSignature = signature;
        else if (block.part.text === "") this.parts.splice(this.parts.indexOf(block.part), 1);
        return undefined;
      }
      case "tool-input-start":
        if (!part.providerExecuted)
          this.calls.set(part.id, { id: part.id, name: part.toolName, input: "", complete: false });
        return undefined;
      case "tool-input-delta": {
        const call = this.calls.get(part.id);
        if (call && !call.complete) call.input += part.delta;
        return undefined;
      }
      case "tool-call":
        if (!part.providerExecuted)
          this.calls.set(part.toolCallId, {
            id: part.toolCallId,
            name: part.toolName,
            input: part.input,
            complete: true,
          });
        return undefined;
      case "response-metadata":
        if (part.modelId) this.modelId = part.modelId;
        return undefined;
      case "finish":
        this.finished = true;
        this.finishReason = part.finishReason;
        this.usage = part.usage;
        return undefined;
      default:
        return undefined;
    }
  }

  finish(): LlmResponse {
    const calls = [...this.calls.values()].map(({ id, name, input }) => ({ id, name, input }));
    return buildResponse([...this.parts], calls, this.finishReason, this.usage, this.modelId, this.issues);
  }
}
