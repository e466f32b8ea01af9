import { runModelConformance } from "./run-model-conformance.js";
import { aiSdkOpenAIResponsesTarget, aiSdkOpenAITarget, langChainOpenAITarget } from "./framework-providers.js";

runModelConformance("AiSdkModel (@ai-sdk/openai chat)", aiSdkOpenAITarget);
runModelConformance("AiSdkModel (@ai-sdk/openai Responses API)", aiSdkOpenAIResponsesTarget);
runModelConformance("LangChainModel (@langchain/openai ChatOpenAI)", langChainOpenAITarget);
