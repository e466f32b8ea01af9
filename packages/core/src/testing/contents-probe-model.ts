import { BaseLlm } from "../models/base-llm.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { LlmResponse } from "../models/llm-response.js";

/**
 * A model for testing what a plugin or callback costs a long conversation. It declares
 * `readsContentsOnly` (it only reads its request, as the provider adapters do), answers every
 * call with `answer <n>`, and keeps each request as it was handed over, by reference. Past the
 * history length a session shares (16 events), a flow whose plugins only read hands every call the
 * same contents array; a plugin that makes the flow copy the history shows up as a new array per
 * call. A shared array keeps growing after its call: read a call's contents up to the length it
 * had then.
 */
export class ContentsProbeModel extends BaseLlm {
  /** Each request, in call order (the requests themselves, not copies). */
  readonly requests: LlmRequest[] = [];

  constructor(options: { model?: string } = {}) {
    super({ model: options.model ?? "contents-probe" });
  }

  override get readsContentsOnly(): boolean {
    return true;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    this.requests.push(request);
    yield { content: { role: "model", parts: [{ text: `answer ${this.requests.length}` }] } };
  }
}
