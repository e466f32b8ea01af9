export { AiSdkModel, type AiSdkModelOptions } from "./ai-sdk-model.js";
export { toAiSdkCallOptions, toAiSdkPrompt, type AiSdkLanguageModel } from "./request-conversion.js";
export { AiSdkStreamAccumulator, fromAiSdkResult, mapAiSdkFinishReason } from "./response-conversion.js";
export { toProviderError as toAiSdkProviderError } from "./error-mapping.js";
export { MessageConversionError, type ConversionIssue } from "../framework/message-conversion-error.js";
export { ConversionIssues } from "../framework/conversion-issues.js";
export type { FrameworkCallMetrics } from "../framework/call-observer.js";
export type { FrameworkOptions } from "../framework/framework-options.js";
