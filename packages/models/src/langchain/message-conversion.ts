import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { getSystemInstructionText, type Content, type LlmRequest, type Part } from "@agentkit/core";
import { CallIdPairer } from "../framework/call-id-pairer.js";
import { ConversionIssues, partKind } from "../framework/conversion-issues.js";
import { thinkingBlockOf } from "./response-conversion.js";

type ContentBlock = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };

/**
 * Converts the Gemini-shaped request into LangChain messages: system instruction →
 * SystemMessage; user text and images → HumanMessage; model text and function calls →
 * AIMessage with `tool_calls`; function responses → one ToolMessage each (paired by call id).
 * Thoughts are not sent back. Parts without a LangChain counterpart are reported to `issues`
 * (default: strict, so a direct caller gets `MessageConversionError`).
 */
export function toLangChainMessages(
  request: LlmRequest,
  issues: ConversionIssues = new ConversionIssues("LangChainModel", { enabled: true, failFast: true }),
): BaseMessage[] {
  const messages: BaseMessage[] = [];
  const system = request.config === undefined ? "" : getSystemInstructionText(request);
  if (system.length > 0) messages.push(new SystemMessage(system));
  const ids = new CallIdPairer();
  messages.push(
    ...(request.contents ?? []).flatMap((content, index) =>
      contentToMessages(content, `contents[${index}]`, ids, issues),
    ),
  );
  return messages;
}

function contentToMessages(
  content: Content,
  where: string,
  ids: CallIdPairer,
  issues: ConversionIssues,
): BaseMessage[] {
  const parts = content.parts ?? [];
  if (content.role === "model" || content.role === "assistant") {
    let text = "";
    const thinking: Array<Record<string, unknown>> = [];
    const toolCalls: Array<{ id: string; name: string; args: Record<string, unknown>; type: "tool_call" }> = [];
    parts.forEach((part, i) => {
      const block = part.thought ? thinkingBlockOf(part.thoughtSignature) : undefined;
      if (block) {
        thinking.push(block);
      } else if (part.functionCall) {
        const name = part.functionCall.name;
        if (!name) {
          issues.report(`${where}.parts[${i}]`, "a function call without a name");
          return;
        }
        toolCalls.push({
          id: ids.forCall(part.functionCall.id, name),
          name,
          args: part.functionCall.args ?? {},
          type: "tool_call",
        });
      } else if (typeof part.text === "string") {
        if (!part.thought) text += part.text;
      } else if (!part.thought) {
        issues.report(`${where}.parts[${i}]`, `unsupported ${partKind(part)} part in a model message`);
      }
    });
    if (text === "" && toolCalls.length === 0 && thinking.length === 0) return [];
    // Signed thinking blocks go back first and verbatim, as the provider requires.
    const body = (
      thinking.length > 0 ? [...thinking, ...(text === "" ? [] : [{ type: "text", text }])] : text
    ) as AIMessage["content"];
    return [
      toolCalls.length > 0 ? new AIMessage({ content: body, tool_calls: toolCalls }) : new AIMessage({ content: body }),
    ];
  }

  const out: BaseMessage[] = [];
  const blocks: ContentBlock[] = [];
  parts.forEach((part, i) => {
    if (part.functionResponse) {
      const fr = part.functionResponse;
      out.push(
        new ToolMessage({
          content: JSON.stringify(fr.response ?? {}),
          tool_call_id: ids.forResponse(fr.id, fr.name),
          ...(fr.name ? { name: fr.name } : {}),
        }),
      );
      return;
    }
    const block = toBlock(part);
    if (block) blocks.push(block);
    else if (!part.thought)
      issues.report(`${where}.parts[${i}]`, `unsupported ${partKind(part)} part in a user message`);
  });
  if (blocks.length > 0) {
    const onlyText = blocks.every((b) => b.type === "text");
    out.push(
      new HumanMessage({ content: onlyText ? blocks.map((b) => (b as { text: string }).text).join("") : blocks }),
    );
  }
  return out;
}

/** Text, and images (inline as data URLs, or by URI) as OpenAI-style blocks, which LangChain providers accept. */
function toBlock(part: Part): ContentBlock | undefined {
  if (typeof part.text === "string") return part.thought ? undefined : { type: "text", text: part.text };
  const inline = part.inlineData;
  if (inline?.data && inline.mimeType?.startsWith("image/"))
    return { type: "image_url", image_url: { url: `data:${inline.mimeType};base64,${inline.data}` } };
  if (part.fileData?.fileUri && part.fileData.mimeType?.startsWith("image/"))
    return { type: "image_url", image_url: { url: part.fileData.fileUri } };
  return undefined;
}
