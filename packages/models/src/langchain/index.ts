export { LangChainModel, type LangChainModelOptions } from "./langchain-model.js";
export { toLangChainMessages } from "./message-conversion.js";
export { fromAiMessage, mapLangChainFinishReason } from "./response-conversion.js";
export { MessageConversionError, type ConversionIssue } from "../framework/message-conversion-error.js";
export { ConversionIssues } from "../framework/conversion-issues.js";
export type { FrameworkCallMetrics } from "../framework/call-observer.js";
export type { FrameworkOptions } from "../framework/framework-options.js";
