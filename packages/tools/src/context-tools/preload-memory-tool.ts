import { appendInstructions, BaseTool, type LlmRequest, type MemoryEntry, type ToolContext } from "@agentkit/core";

/**
 * Memory without a tool call: before every model call it searches the user's long-term
 * memory with the user's message and puts what it finds in the system instruction. The model
 * never calls it. Without a memory service configured it raises `ConfigurationError`.
 */
export class PreloadMemoryTool extends BaseTool {
  constructor() {
    super({ name: "preload_memory", description: "Preloads the memory for the current user." });
  }

  override async processLlmRequest({
    toolContext,
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    const query = toolContext.userContent?.parts?.[0]?.text;
    if (typeof query !== "string" || query === "") return;
    const { memories } = await toolContext.searchMemory(query);
    const text = memories
      .map(memoryText)
      .filter((t) => t !== "")
      .join("\n");
    if (text === "") return;
    appendInstructions(llmRequest, [
      `The following content is from your previous conversations with the user.\nThey may be useful for answering the user's current query.\n<PAST_CONVERSATIONS>\n${text}\n</PAST_CONVERSATIONS>`,
    ]);
  }
}

function memoryText(memory: MemoryEntry): string {
  const lines: string[] = [];
  if (memory.timestamp) lines.push(`Time: ${memory.timestamp}`);
  const body = (memory.content.parts ?? [])
    .flatMap((p) => (typeof p.text === "string" && !p.thought && p.text !== "" ? [p.text] : []))
    .join(" ");
  if (body) lines.push(memory.author ? `${memory.author}: ${body}` : body);
  return lines.join("\n");
}

export const preloadMemoryTool: PreloadMemoryTool = new PreloadMemoryTool();
