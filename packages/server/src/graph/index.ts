export { buildAgentDot, dotId, type AgentDotOptions } from "./agent-dot.js";
export { highlightPairsForEvent } from "./event-highlights.js";
export { createGraphRouter } from "./graph-router.js";
