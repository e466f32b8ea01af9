import { runModelConformance } from "./run-model-conformance.js";
import { anthropicTarget, openAIChatTarget } from "./providers.js";

runModelConformance("OpenAI chat", openAIChatTarget);
runModelConformance("Anthropic", anthropicTarget);
