import { AgentTool, LlmAgent, type BaseLlm } from "@agentkit/core";
import { NativeGoogleSearchTool } from "./native-google-search.js";

export interface GoogleSearchAgentToolOptions {
  /** A Gemini model (instance or name) that runs the searches. */
  model: BaseLlm | string;
  /** Tool (and sub-agent) name; default `google_search_agent`. */
  name?: string;
  /** Instruction of the search sub-agent. */
  instruction?: string;
}

const DEFAULT_INSTRUCTION =
  "You are a specialist in Google Search. Answer the request with a concise, factual summary of what a Google search " +
  "finds, and name your sources.";

/**
 * Google Search for any agent: a Gemini sub-agent with `googleSearchTool`, called as a
 * function tool (`{ request }`) and answering with the search summary. Use it when the
 * calling agent's model is not Gemini, or when search must sit beside function tools on a
 * model that rejects mixing native and function tools.
 */
export class GoogleSearchAgentTool extends AgentTool {
  readonly searchAgent: LlmAgent;

  constructor({
    model,
    name = "google_search_agent",
    instruction = DEFAULT_INSTRUCTION,
  }: GoogleSearchAgentToolOptions) {
    const searchAgent = new LlmAgent({
      name,
      model,
      description: "Searches Google and answers with a grounded summary of the results.",
      instruction,
      // A plain search tool: no fallback, so the sub-agent never nests another sub-agent.
      tools: [new NativeGoogleSearchTool()],
    });
    super({ agent: searchAgent });
    this.searchAgent = searchAgent;
  }
}
