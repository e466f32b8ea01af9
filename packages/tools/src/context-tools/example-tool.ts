import {
  BaseTool,
  ConfigurationError,
  type Content,
  type LlmRequest,
  type Part,
  type ToolContext,
  appendInstructions,
} from "@agentkit/core";

/** One few-shot example: a user input and the model turns that answered it (the spec's `Example`). */
export interface Example {
  input: Content;
  output: Content[];
}

/** Picks examples for the user's query (e.g. the nearest ones from a store). */
export type ExampleProvider = (query: string) => Example[] | Promise<Example[]>;

export interface ExampleToolOptions {
  /** Fixed examples, or a provider called with the user's query on every turn. */
  examples: Example[] | ExampleProvider;
}

/**
 * Few-shot examples in the system instruction: on each model call of a turn, the examples
 * (fixed, or chosen by the provider from the user's query) are written out as a block of
 * `[user]` / `[model]` turns, tool calls and tool results included. The model never calls it.
 */
export class ExampleTool extends BaseTool {
  readonly examples: Example[] | ExampleProvider;

  constructor(options: ExampleToolOptions) {
    super({ name: "example_tool", description: "Adds few-shot examples to the instruction." });
    const examples = options?.examples;
    if (typeof examples !== "function" && !Array.isArray(examples)) {
      throw new ConfigurationError(
        "ExampleTool needs `examples`: a list of { input, output } or a provider function (query) => examples.",
      );
    }
    if (Array.isArray(examples)) examples.forEach(checkExample);
    this.examples = examples;
  }

  override async processLlmRequest({
    toolContext,
    llmRequest,
  }: {
    toolContext: ToolContext;
    llmRequest: LlmRequest;
  }): Promise<void> {
    const query = firstText(toolContext.userContent);
    if (query === undefined) return;
    let examples: Example[];
    if (typeof this.examples === "function") {
      const provided = await this.examples(query);
      if (!Array.isArray(provided))
        throw new ConfigurationError("The ExampleTool provider must return a list of { input, output } examples.");
      provided.forEach(checkExample);
      examples = provided;
    } else {
      examples = this.examples;
    }
    appendInstructions(llmRequest, [examplesToInstruction(examples)]);
  }
}

function checkExample(example: unknown, index: number): void {
  const e = example as Partial<Example> | null;
  if (
    typeof e !== "object" ||
    e === null ||
    typeof e.input !== "object" ||
    e.input === null ||
    !Array.isArray(e.output)
  ) {
    throw new ConfigurationError(`ExampleTool example #${index + 1} must be { input: Content, output: Content[] }.`);
  }
}

function firstText(content: Content | undefined): string | undefined {
  const text = content?.parts?.[0]?.text;
  return typeof text === "string" && text !== "" ? text : undefined;
}

/** The few-shot block for a list of examples ("" when there are none). */
export function examplesToInstruction(examples: Example[]): string {
  if (examples.length === 0) return "";
  const blocks = examples.map((example, i) => {
    const turns = [
      turnText("user", example.input),
      ...example.output.map((c) => turnText(c.role === "user" ? "user" : "model", c)),
    ];
    return `EXAMPLE ${i + 1}:\nBegin example\n${turns.filter((t) => t !== "").join("")}End example\n`;
  });
  return [
    "<EXAMPLES>",
    "Begin few-shot",
    "The following are examples of user queries and model responses using the available tools.\n",
    blocks.join("\n"),
    "End few-shot",
    "</EXAMPLES>",
  ].join("\n");
}

function turnText(role: "user" | "model", content: Content): string {
  const lines = (content.parts ?? []).map(partText).filter((t) => t !== "");
  return lines.length > 0 ? `[${role}]\n${lines.join("")}` : "";
}

function partText(part: Part): string {
  if (part.thought) return "";
  if (typeof part.text === "string") return `${part.text}\n`;
  if (part.functionCall) {
    return `\`\`\`tool_code\n${part.functionCall.name ?? ""}(${formatArgs(part.functionCall.args ?? {})})\n\`\`\`\n`;
  }
  if (part.functionResponse)
    return `\`\`\`tool_outputs\n${JSON.stringify(part.functionResponse.response ?? {})}\n\`\`\`\n`;
  return "";
}

function formatArgs(args: Record<string, unknown>): string {
  return Object.entries(args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(", ");
}
