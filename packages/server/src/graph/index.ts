export { buildAgentDot, dotId, type AgentDotOptions } from "./agent-dot.js";
export { highlightPairsForEvent } from "./event-highlights.js";
export { describeAgent, describeApp, type AppStructure, type StructureNode } from "./app-structure.js";
export { createGraphRouter } from "./graph-router.js";
