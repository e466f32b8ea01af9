// Public API of the agent loader (re-exported by the package index).
export {
  createDirectoryAgentLoader,
  type DirectoryAgentLoaderOptions,
  type LoaderLogger,
} from "./directory-agent-loader.js";
export { AgentLoadError, relativizePaths } from "./agent-load-error.js";
export {
  lazyBuiltInTool,
  type LazyBuiltInTool,
  type BuiltInCodeExecutorEntry,
  type BuiltInTool,
  type BuiltInToolContext,
  type BuiltInToolFactory,
} from "./load-context.js";
export { BUILDER_MARKER, DEFAULT_BUILDER_POLICY, type BuilderPolicy } from "./builder-policy.js";
export type { ImportModule } from "./module-importer.js";
export { MODULE_ENTRY_FILES, YAML_ENTRY_FILES } from "./app-discovery.js";
