export { LangChainModel, toLangChainMessages, type LangChainModelOptions } from "./langchain-model.js";
export { MessageConversionError } from "../framework/message-conversion-error.js";
