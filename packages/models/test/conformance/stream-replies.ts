import { chunk } from "../fixtures/openai-server.js";
import { streamEvents } from "../fixtures/anthropic-server.js";

/** Usage every streamed conformance answer reports (10 in, 5 out), as in the JSON replies. */
const USAGE = { input: 10, output: 5 };

/** A Chat Completions SSE stream of the text chunks, then the finish chunk and the usage chunk. */
export function openAIChatStream(texts: string[]) {
  return {
    kind: "sse" as const,
    chunks: [
      chunk({ role: "assistant", content: "" }),
      ...texts.map((content) => chunk({ content })),
      chunk({}, { finishReason: "stop" }),
      chunk(
        {},
        {
          noChoices: true,
          usage: {
            prompt_tokens: USAGE.input,
            completion_tokens: USAGE.output,
            total_tokens: USAGE.input + USAGE.output,
          },
        },
      ),
    ],
  };
}

/** A Responses API event stream: created, one text delta per chunk, the item done, completed. */
export function openAIResponsesStream(texts: string[]) {
  const text = texts.join("");
  const item = {
    type: "message",
    id: "msg_1",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
  const response = (status: string, output: unknown[]) => ({
    id: "resp_1",
    object: "response",
    created_at: 1_700_000_000,
    status,
    model: "gpt-test",
    output,
    usage:
      status === "completed"
        ? {
            input_tokens: USAGE.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: USAGE.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: USAGE.input + USAGE.output,
          }
        : null,
    error: null,
    incomplete_details: null,
  });
  return {
    kind: "events" as const,
    events: [
      { type: "response.created", response: response("in_progress", []) },
      { type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } },
      ...texts.map((delta) => ({
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta,
        logprobs: [],
      })),
      { type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text, logprobs: [] },
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: response("completed", [item]) },
    ],
  };
}

/** An Anthropic Messages event stream with one text block split into the chunks. */
export function anthropicStream(texts: string[]) {
  return { kind: "sse" as const, events: streamEvents([{ type: "text", chunks: texts }], "end_turn") };
}

/** A provider-neutral turn as a Responses API JSON reply (same shape as the OpenAIModel target's). */
export function openAIResponsesReply(
  turn:
    | { text: string }
    | { rateLimited: true }
    | { toolCalls: Array<{ id: string; name: string; args: Record<string, unknown> }> },
) {
  if ("rateLimited" in turn) {
    return {
      kind: "json" as const,
      status: 429,
      headers: { "retry-after": "0" },
      body: { error: { message: "slow down", type: "requests" } },
    };
  }
  const output =
    "text" in turn
      ? [
          {
            type: "message",
            id: "msg_1",
            role: "assistant",
            status: "completed",
            content: [{ type: "output_text", text: turn.text, annotations: [] }],
          },
        ]
      : turn.toolCalls.map((c, i) => ({
          type: "function_call",
          id: `fc_${i}`,
          call_id: c.id,
          name: c.name,
          arguments: JSON.stringify(c.args),
          status: "completed",
        }));
  return {
    kind: "json" as const,
    body: {
      id: "resp_1",
      object: "response",
      created_at: 1_700_000_000,
      status: "completed",
      model: "gpt-test",
      output,
      usage: {
        input_tokens: USAGE.input,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: USAGE.output,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: USAGE.input + USAGE.output,
      },
      error: null,
      incomplete_details: null,
    },
  };
}
