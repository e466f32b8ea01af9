import { ConfigurationError } from "@agentkit/core";
import { lazyBuiltInTool, type BuilderPolicy, type BuiltInTool } from "@agentkit/server";

/**
 * The names of `createBuiltInTools()` of @agentkit/tools, listed here so a start need not import
 * the package (and build its tools) to know them; a test checks that the builder policy, which
 * lists them, names exactly the package's built-ins.
 */
const BUILT_IN_TOOL_NAMES: readonly string[] = [
  "google_search",
  "google_maps_grounding",
  "google_maps",
  "url_context",
  "built_in_code_execution",
  "load_artifacts",
  "load_memory",
  "preload_memory",
  "exit_loop",
  "vertex_ai_search",
  "VertexAiSearchTool",
  "example_tool",
  "ExampleTool",
];

/** @agentkit/tools' built-ins, each loaded when a config first names one of them. */
function lazyPackageBuiltIns(): Record<string, BuiltInTool> {
  let entries: ReturnType<typeof import("@agentkit/tools").createBuiltInTools> | undefined;
  const load = async (name: string) => {
    entries ??= (await import("@agentkit/tools")).createBuiltInTools();
    const entry = entries[name];
    if (!entry) throw new ConfigurationError(`@agentkit/tools has no built-in tool "${name}".`);
    return entry;
  };
  return Object.fromEntries(BUILT_IN_TOOL_NAMES.map((name) => [name, lazyBuiltInTool(() => load(name))]));
}

/**
 * The tools YAML agent configs may name bare in the dev server: @agentkit/tools' built-ins
 * (google_search, load_artifacts, …), `McpToolset` with ADK's connection args, and the
 * toolsets of @agentkit/tools' subpaths under ADK's class names (`OpenAPIToolset`,
 * `ApplicationIntegrationToolset`, `ComputerUseToolset`, `VertexAiRagRetrieval`). Each of
 * those is imported only when a config names it, to keep start-up short (and playwright-core,
 * the MCP SDK and google-auth-library optional), and `SkillToolset` (skill folders). Relative
 * paths in their args (`spec_path`, `sa_key_file`, `user_data_dir`, `skills_dir`, `skills`)
 * resolve against the folder of the YAML file naming them.
 */
export function devServerBuiltInTools(): Record<string, BuiltInTool> {
  const mcpToolset: BuiltInTool = async (args) => (await import("@agentkit/mcp")).mcpToolsetFromConfig(args);
  const openApiToolset: BuiltInTool = async (args, { baseDir }) =>
    (await import("@agentkit/tools/openapi")).openApiToolsetFromConfig(args, { baseDir });
  const applicationIntegrationToolset: BuiltInTool = async (args, { baseDir }) =>
    (await import("@agentkit/tools/openapi")).applicationIntegrationToolsetFromConfig(args, { baseDir });
  const computerUseToolset: BuiltInTool = async (args, { baseDir }) =>
    (await import("@agentkit/tools/computer-use")).computerUseToolsetFromConfig(args, { baseDir });
  const skillToolset: BuiltInTool = async (args, { baseDir }) =>
    (await import("@agentkit/tools/skills")).skillToolsetFromConfig(args, { baseDir });
  const vertexAiRagRetrieval: BuiltInTool = async (args) =>
    (await import("@agentkit/tools/retrieval")).vertexAiRagRetrievalFromConfig(args);
  return {
    ...lazyPackageBuiltIns(),
    McpToolset: mcpToolset,
    MCPToolset: mcpToolset,
    OpenAPIToolset: openApiToolset,
    OpenApiToolset: openApiToolset,
    ApplicationIntegrationToolset: applicationIntegrationToolset,
    ComputerUseToolset: computerUseToolset,
    VertexAiRagRetrieval: vertexAiRagRetrieval,
    SkillToolset: skillToolset,
  };
}

/**
 * What configs written through the dev UI's agent builder may name in the dev server: the
 * executor that runs code on Gemini's side, and @agentkit/tools' built-in tools. Not the local
 * code executors (child processes here), MCP (it may start a command), the computer-use
 * toolset (a browser here) or the OpenAPI toolsets (they need args, which the builder refuses).
 */
export function devServerBuilderPolicy(): BuilderPolicy {
  return { codeExecutors: ["BuiltInCodeExecutor"], tools: [...BUILT_IN_TOOL_NAMES] };
}
