import { BaseLlm, type BaseLlmConnection, type LlmRequest, type LlmResponse } from "@google/adk";

/**
 * ADK's counterpart of `InstantModel`: answers at once and records nothing. A user turn gets
 * one `lookup` call, a tool response gets the final text (the same responses, so both
 * frameworks do the same work per invocation).
 */
export class AdkInstantModel extends BaseLlm {
  constructor() {
    super({ model: "instant" });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const last = request.contents[request.contents.length - 1];
    const answered = last?.parts?.some((p) => p.functionResponse) ?? false;
    yield answered
      ? {
          content: { role: "model", parts: [{ text: "The answer is 42." }] },
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        }
      : { content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { q: "x" } } }] } };
  }

  connect(): Promise<BaseLlmConnection> {
    return Promise.reject(new Error("AdkInstantModel has no live mode."));
  }
}
