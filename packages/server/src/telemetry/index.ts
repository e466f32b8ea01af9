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
export type { SpanJson } from "./span-json.js";
