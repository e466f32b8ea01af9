import type { BaseTool, BaseToolset } from "@agentkit/core";
import { setOwn, snakeToCamel } from "@agentkit/core/internal";
import { builtInCodeExecutionTool } from "./built-in/built-in-code-execution-tool.js";
import { googleMapsTool } from "./built-in/google-maps-tool.js";
import { googleSearchTool } from "./built-in/google-search-tool.js";
import { urlContextTool } from "./built-in/url-context-tool.js";
import { VertexAiSearchTool, type VertexAiSearchToolOptions } from "./built-in/vertex-ai-search-tool.js";
import { ExampleTool, type Example } from "./context-tools/example-tool.js";
import { loadArtifactsTool } from "./context-tools/load-artifacts-tool.js";
import { loadMemoryTool } from "./context-tools/load-memory-tool.js";
import { preloadMemoryTool } from "./context-tools/preload-memory-tool.js";
import { exitLoopTool } from "@agentkit/core";

/** A tool a YAML config names bare: an instance, or a factory taking the config's `args`. */
export type BuiltInToolEntry =
  | BaseTool
  | BaseToolset
  | ((args: Record<string, unknown> | undefined) => BaseTool | BaseToolset);

/**
 * The tools of this package by the names YAML agent configs use (ADK's names), for the
 * server's `builtInTools` option. `vertex_ai_search` and `example_tool` take `args`
 * (the tools' options, camelCase or snake_case).
 */
export function createBuiltInTools(): Record<string, BuiltInToolEntry> {
  return {
    google_search: googleSearchTool,
    google_maps_grounding: googleMapsTool,
    google_maps: googleMapsTool,
    url_context: urlContextTool,
    built_in_code_execution: builtInCodeExecutionTool,
    load_artifacts: loadArtifactsTool,
    load_memory: loadMemoryTool,
    preload_memory: preloadMemoryTool,
    exit_loop: exitLoopTool,
    vertex_ai_search: vertexAiSearch,
    VertexAiSearchTool: vertexAiSearch,
    example_tool: exampleTool,
    ExampleTool: exampleTool,
  };
}

const vertexAiSearch = (args: Record<string, unknown> | undefined) =>
  new VertexAiSearchTool(camelKeys(args ?? {}) as VertexAiSearchToolOptions);
const exampleTool = (args: Record<string, unknown> | undefined) =>
  new ExampleTool({ examples: args?.examples as Example[] });

/** `data_store_id` → `dataStoreId` (top-level keys and keys of listed objects). */
function camelKeys(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    setOwn(
      out,
      snakeToCamel(key),
      Array.isArray(v)
        ? v.map((item) =>
            typeof item === "object" && item !== null ? camelKeys(item as Record<string, unknown>) : item,
          )
        : v,
    );
  }
  return out;
}
