// Public API of @agentkit/models/gemini.
export { Gemini } from "./gemini-model.js";
export { geminiOptionsSchema, resolveBackend, type GeminiBackend, type GeminiOptions } from "./gemini-options.js";
export { GeminiLiveConnection, toLiveConnectConfig } from "./gemini-live-connection.js";
export { DEFAULT_CACHE_INTERVALS, DEFAULT_CACHE_TTL_SECONDS, type GeminiCacheMetadata } from "./context-cache.js";
