import { BaseLlm, type LlmRequest, type LlmResponse } from "@agentkit/core";

/**
 * A model that answers at once and records nothing, so a benchmark measures agentkit,
 * not the double: a user turn gets one tool call, a tool response gets the final text.
 */
export class InstantModel extends BaseLlm {
  /** It only reads the last content and keeps nothing of them. */
  override get readsContentsOnly(): boolean {
    return true;
  }

  constructor() {
    super({ model: "instant" });
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const last = request.contents[request.contents.length - 1];
    const answered = last?.parts?.some((p) => p.functionResponse) ?? false;
    yield answered
      ? {
          content: { role: "model", parts: [{ text: "The answer is 42." }] },
          usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
        }
      : { content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { q: "x" } } }] } };
  }
}
