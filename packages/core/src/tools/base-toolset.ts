import type { ReadonlyContext } from "../context/readonly-context.js";
import type { LlmRequest } from "../models/llm-request.js";
import type { BaseTool } from "./base-tool.js";
import type { ToolContext } from "../context/tool-context.js";

/** Selects tools by name or by predicate. */
export type ToolFilter = string[] | ((tool: BaseTool, context?: ReadonlyContext) => boolean);

export interface BaseToolsetOptions {
  toolFilter?: ToolFilter;
  /** Prepended (with `_`) to every tool name of the set, to avoid clashes. */
  toolNamePrefix?: string;
}

/**
 * A group of tools resolved per invocation (e.g. from an MCP server). Owners close it:
 * `runner.close()` closes every toolset of its agents.
 */
export abstract class BaseToolset {
  readonly toolFilter?: ToolFilter;
  readonly toolNamePrefix?: string;

  constructor(options: BaseToolsetOptions = {}) {
    this.toolFilter = options.toolFilter;
    this.toolNamePrefix = options.toolNamePrefix;
  }

  /** The tools available in this context (after the filter). */
  abstract getTools(context?: ReadonlyContext): Promise<BaseTool[]>;

  /** Releases connections and processes. Safe to call more than once. */
  abstract close(): Promise<void>;

  /** Lets the toolset change a request before its tools are added (optional). */
  async processLlmRequest(_args: { toolContext: ToolContext; llmRequest: LlmRequest }): Promise<void> {}

  /** Applies `toolFilter` to one tool. */
  protected isToolSelected(tool: BaseTool, context?: ReadonlyContext): boolean {
    const filter = this.toolFilter;
    if (!filter) return true;
    return Array.isArray(filter) ? filter.includes(tool.name) : filter(tool, context);
  }
}

/** What an agent's `tools` list accepts. */
export type ToolUnion = BaseTool | BaseToolset;

export function isToolset(value: unknown): value is BaseToolset {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as BaseToolset).getTools === "function" &&
    typeof (value as BaseToolset).close === "function"
  );
}
