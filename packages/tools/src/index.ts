// Public API of @agentkit/tools (root entry). Computer use, OpenAPI/integration toolsets and
// retrieval have their own subpath exports.

// Built-in model tools (Gemini native tools)
export { GoogleSearchTool, googleSearchTool, type GoogleSearchToolOptions } from "./built-in/google-search-tool.js";
export { GoogleSearchAgentTool, type GoogleSearchAgentToolOptions } from "./built-in/google-search-agent-tool.js";
export { GoogleMapsTool, googleMapsTool } from "./built-in/google-maps-tool.js";
export { UrlContextTool, urlContextTool } from "./built-in/url-context-tool.js";
export { BuiltInCodeExecutionTool, builtInCodeExecutionTool } from "./built-in/built-in-code-execution-tool.js";
export {
  VertexAiSearchTool,
  type VertexAiSearchToolOptions,
  type VertexAiSearchDataStoreSpec,
} from "./built-in/vertex-ai-search-tool.js";
export { isGeminiModel, isGemini1Model } from "./built-in/model-names.js";

// Context tools: examples, artifacts, memory, loop exit
export {
  ExampleTool,
  examplesToInstruction,
  type Example,
  type ExampleProvider,
  type ExampleToolOptions,
} from "./context-tools/example-tool.js";
export { LoadArtifactsTool, loadArtifactsTool } from "./context-tools/load-artifacts-tool.js";
export { LoadMemoryTool, loadMemoryTool, type LoadMemoryResponse } from "./context-tools/load-memory-tool.js";
export { PreloadMemoryTool, preloadMemoryTool } from "./context-tools/preload-memory-tool.js";
export { exitLoopTool } from "@agentkit/core";

// Tool filters for toolsets
export { filterTools, toolNamePredicate, type ToolPredicate } from "./context-tools/tool-predicate.js";
export type { ToolFilter } from "@agentkit/core";

// Code executors
export {
  BaseCodeExecutor,
  type BaseCodeExecutorOptions,
  type CodeExecutionInput,
  type CodeExecutionFile,
  type CodeExecutionFile as File,
  type CodeExecutorResult as CodeExecutionResult,
  type Delimiters,
} from "@agentkit/core";
export { BuiltInCodeExecutor, type BuiltInCodeExecutorOptions } from "./code-executors/built-in-code-executor.js";
export {
  LocalCodeExecutor,
  UnsafeLocalCodeExecutor,
  type LocalCodeExecutorOptions,
} from "./code-executors/local-code-executor.js";
export type { CodeLanguage } from "./code-executors/interpreter.js";

// Names for YAML agent configs
export { createBuiltInTools, type BuiltInToolEntry } from "./built-in-tool-map.js";
