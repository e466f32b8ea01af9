import type { Content } from "../content/content.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { createEvent, type Event } from "../events/event.js";
import { createEventActions } from "../events/event-actions.js";
import type { BaseLlm } from "../models/base-llm.js";
import { createLlmRequest } from "../models/llm-request.js";
import type { EventsSummarizer } from "./app.js";

export interface LlmEventSummarizerOptions {
  /** The model that writes summaries (a small, cheap one is usually right). */
  model: BaseLlm;
  /** Replaces the default summarization instruction. */
  instruction?: string;
  /** Each event's text is cut to this many characters in the prompt (default 2,000). */
  maxEventTextLength?: number;
}

const DEFAULT_INSTRUCTION = [
  "You compact the history of a conversation between a user and AI agents.",
  "Write a concise summary that keeps every fact, decision, open question, tool result and",
  "user preference a later turn may need. Keep names, numbers and identifiers exactly.",
  "If an earlier summary is given, fold it in. Answer with the summary only.",
].join(" ");

/**
 * An `EventsSummarizer` that asks a model to summarize the events. The result is one event
 * (author `user`, like ADK's) whose `actions.compaction` covers the summarized range: from
 * the earliest summarized event (or the start of a folded-in earlier summary) to the last.
 */
export class LlmEventSummarizer implements EventsSummarizer {
  private readonly model: BaseLlm;
  private readonly instruction: string;
  private readonly maxText: number;

  constructor(options: LlmEventSummarizerOptions) {
    if (!options?.model || typeof options.model.generateContentAsync !== "function") {
      throw new ConfigurationError("LlmEventSummarizer needs a model (a BaseLlm instance).");
    }
    this.model = options.model;
    this.instruction = options.instruction ?? DEFAULT_INSTRUCTION;
    this.maxText = options.maxEventTextLength ?? 2000;
  }

  async maybeSummarizeEvents({
    events,
    signal,
  }: {
    events: Event[];
    signal?: AbortSignal;
  }): Promise<Event | undefined> {
    const regular = events.filter((e) => !e.actions.compaction);
    if (regular.length === 0) return undefined;
    const transcript = events
      .map((e) => this.line(e))
      .filter(Boolean)
      .join("\n");
    const request = createLlmRequest({
      model: this.model.model,
      contents: [{ role: "user", parts: [{ text: `Conversation to summarize:\n${transcript}` }] }],
      config: { systemInstruction: this.instruction },
    });
    let summary = "";
    for await (const response of this.model.generateContentAsync(request, false, signal ? { signal } : undefined)) {
      if (response.errorCode)
        throw new ConfigurationError(
          `LlmEventSummarizer: the model answered with an error: ${response.errorCode} ${response.errorMessage ?? ""}`.trim(),
        );
      if (response.partial) continue;
      const text = (response.content?.parts ?? [])
        .filter((p) => !p.thought)
        .map((p) => p.text ?? "")
        .join("");
      if (text) summary = text;
    }
    if (!summary.trim()) return undefined;
    const earlier = events.find((e) => e.actions.compaction)?.actions.compaction;
    const startTimestamp = Math.min(earlier?.startTimestamp ?? Number.POSITIVE_INFINITY, regular[0]!.timestamp);
    const endTimestamp = Math.max(...regular.map((e) => e.timestamp));
    const compactedContent: Content = { role: "model", parts: [{ text: summary }] };
    return createEvent({
      author: "user",
      invocationId: regular.at(-1)!.invocationId,
      actions: createEventActions({ compaction: { startTimestamp, endTimestamp, compactedContent } }),
    });
  }

  private line(event: Event): string {
    const compaction = event.actions.compaction;
    if (compaction) return `[earlier summary] ${text(compaction.compactedContent, this.maxText)}`;
    const parts = (event.content?.parts ?? []).flatMap((p) => {
      if (p.thought) return [];
      if (typeof p.text === "string") return [p.text];
      if (p.functionCall)
        return [`called ${p.functionCall.name}(${clip(JSON.stringify(p.functionCall.args ?? {}), this.maxText)})`];
      if (p.functionResponse)
        return [
          `${p.functionResponse.name} returned ${clip(JSON.stringify(p.functionResponse.response ?? {}), this.maxText)}`,
        ];
      if (p.inlineData) return [`[${p.inlineData.mimeType ?? "file"} attached]`];
      return [];
    });
    if (parts.length === 0) return "";
    return `${event.author}: ${clip(parts.join(" "), this.maxText)}`;
  }
}

function text(content: Content, max: number): string {
  return clip((content.parts ?? []).map((p) => p.text ?? "").join(""), max);
}

function clip(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
