export {
  createTraceRecorder,
  type TraceRecorder,
  type TraceRecorderOptions,
  type TraceSource,
  type TraceOwner,
} from "./trace-recorder.js";
export { TracingPlugin } from "./tracing-plugin.js";
export { TraceStore, type TraceStoreOptions, type EventTraceAttributes } from "./trace-store.js";
export { createDebugRouter, type DebugRouterOptions } from "./debug-router.js";
export { toSpanJson, type SpanJson, type SpanAttributeValue } from "./span-json.js";
export { TraceAttr, GEN_AI_SYSTEM } from "./trace-attributes.js";
