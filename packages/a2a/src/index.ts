// Public API of @agentkit/a2a (A2A protocol v1.0 on @a2a-js/sdk). Exports listed by name.

export { A2AClientError, AgentCardResolutionError } from "./errors.js";

// Conversions between agentkit content/events and A2A parts/messages
export {
  ADK_METADATA_PREFIX,
  A2A_DATA_PART_TYPE_KEY,
  A2ADataPartMetadataType,
  A2AMetadataKey,
  AdkMetadataKey,
  adkMetadataKey,
} from "./converters/metadata.js";
export { partToA2a, partFromA2a, longRunningIdsOf, type PartToA2aOptions } from "./converters/part-converter.js";
export {
  contentToA2aParts,
  a2aPartsToParts,
  contentToA2aMessage,
  a2aMessageToContent,
  eventMetadata,
  eventToA2aMessage,
  type ContentToA2aMessageOptions,
  type EventMetadataContext,
} from "./converters/message-converter.js";
export { taskStateName } from "./converters/task-state.js";

// Client: a remote agent reached over A2A
export { RemoteA2aAgent, type RemoteA2aAgentOptions, type A2aTransportName } from "./client/remote-a2a-agent.js";
export { A2aResponseConverter, type ResponseConverterInit } from "./client/response-converter.js";
export { resolveAgentCard, normalizeAgentCard, agentCardLocation } from "./client/agent-card-resolver.js";

// Server: any agentkit runner served over A2A
export {
  A2aAgentExecutor,
  AgentExecutorConfig,
  OutputMode,
  type A2aAgentExecutorOptions,
  type AdmitRun,
} from "./server/a2a-agent-executor.js";
export {
  buildAgentCard,
  skillsOf,
  supportedInterfacesAt,
  A2A_JSONRPC_PATH,
  A2A_REST_PATH,
  type BuildAgentCardOptions,
} from "./server/agent-card-builder.js";
export { createA2aRouter, type CreateA2aRouterOptions } from "./server/a2a-router.js";
export { BoundedTaskStore, type BoundedTaskStoreOptions } from "./server/bounded-task-store.js";
