import type { BaseTool, ReadonlyContext, ToolFilter } from "@agentkit/core";

/** Decides whether a toolset offers a tool in a context (the predicate form of `ToolFilter`). */
export type ToolPredicate = (tool: BaseTool, context?: ReadonlyContext) => boolean;

/** The tools a filter selects: a list of names, a predicate, or (undefined) all of them. */
export function filterTools<T extends BaseTool>(
  tools: readonly T[],
  filter: ToolFilter | undefined,
  context?: ReadonlyContext,
): T[] {
  if (!filter) return [...tools];
  if (Array.isArray(filter)) {
    const names = new Set(filter);
    return tools.filter((t) => names.has(t.name));
  }
  return tools.filter((t) => filter(t, context));
}

/** A predicate accepting tools by name. */
export function toolNamePredicate(names: readonly string[]): ToolPredicate {
  const set = new Set(names);
  return (tool) => set.has(tool.name);
}
