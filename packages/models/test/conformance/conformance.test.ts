import { runModelConformance } from "./run-model-conformance.js";
import { anthropicTarget, openAIChatTarget, openAIResponsesTarget } from "./providers.js";

runModelConformance("OpenAI chat", openAIChatTarget);
runModelConformance("OpenAI Responses API", openAIResponsesTarget);
runModelConformance("Anthropic", anthropicTarget);
