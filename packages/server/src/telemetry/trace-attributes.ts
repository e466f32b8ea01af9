/** Attribute keys of the spans the trace recorder writes (ADK's names, read by the dev UI). */
export const TraceAttr = {
  operationName: "gen_ai.operation.name",
  system: "gen_ai.system",
  requestModel: "gen_ai.request.model",
  agentName: "gen_ai.agent.name",
  agentDescription: "gen_ai.agent.description",
  conversationId: "gen_ai.conversation.id",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  finishReasons: "gen_ai.response.finish_reasons",
  toolName: "gen_ai.tool.name",
  toolDescription: "gen_ai.tool.description",
  toolType: "gen_ai.tool.type",
  toolCallId: "gen_ai.tool.call.id",
  invocationId: "gcp.vertex.agent.invocation_id",
  sessionId: "gcp.vertex.agent.session_id",
  /** The invocation's user (OpenTelemetry's `user.id`): whose trace it is, for the debug routes. */
  userId: "user.id",
  eventId: "gcp.vertex.agent.event_id",
  llmRequest: "gcp.vertex.agent.llm_request",
  llmResponse: "gcp.vertex.agent.llm_response",
  toolCallArgs: "gcp.vertex.agent.tool_call_args",
  toolResponse: "gcp.vertex.agent.tool_response",
} as const;

/** `gen_ai.system` of every model-call span (ADK's value). */
export const GEN_AI_SYSTEM = "gcp.vertex.agent";
