/**
 * Metadata keys and data-part types shared by both directions of the A2A conversion. As ADK
 * does, every key agentkit writes into A2A `metadata` maps carries the `adk_` prefix, so it
 * never collides with keys of other A2A implementations.
 */

/** The prefix of every metadata key agentkit writes into A2A messages, parts and tasks. */
export const ADK_METADATA_PREFIX = "adk_";

/** `key` with the `adk_` prefix. */
export function adkMetadataKey(key: string): string {
  return `${ADK_METADATA_PREFIX}${key}`;
}

/** The metadata key (on a data part) that names what the data part holds. */
export const A2A_DATA_PART_TYPE_KEY = adkMetadataKey("type");

/** What a data part holds (the value under `A2A_DATA_PART_TYPE_KEY`). */
export const A2ADataPartMetadataType = {
  FUNCTION_CALL: "function_call",
  FUNCTION_RESPONSE: "function_response",
  EXECUTABLE_CODE: "executable_code",
  CODE_EXECUTION_RESULT: "code_execution_result",
} as const;
export type A2ADataPartMetadataType = (typeof A2ADataPartMetadataType)[keyof typeof A2ADataPartMetadataType];

/** Metadata keys (messages, status updates and parts) carrying event fields. */
export const A2AMetadataKey = {
  CUSTOM_METADATA: adkMetadataKey("custom_metadata"),
  ERROR_CODE: adkMetadataKey("error_code"),
  GROUNDING_METADATA: adkMetadataKey("grounding_metadata"),
  /** On a function-call data part: the call runs long or waits for the client. */
  IS_LONG_RUNNING: adkMetadataKey("is_long_running"),
} as const;
export type A2AMetadataKey = (typeof A2AMetadataKey)[keyof typeof A2AMetadataKey];

/** Metadata keys describing the agentkit side of an exchange (session, event, A2A ids). */
export const AdkMetadataKey = {
  /** The A2A context id, kept in the client's event `customMetadata` to continue the conversation. */
  CONTEXT_ID: adkMetadataKey("context_id"),
  /** The A2A task id of a task still open (input-required), to continue that task. */
  TASK_ID: adkMetadataKey("task_id"),
  /** How many artifacts a waiting task held: a continued task's earlier artifacts are not repeated. */
  ARTIFACT_COUNT: adkMetadataKey("artifact_count"),
  /** The A2A task state that an event reported (e.g. `input-required`). */
  TASK_STATE: adkMetadataKey("task_state"),
  APP_NAME: adkMetadataKey("app_name"),
  USER_ID: adkMetadataKey("user_id"),
  SESSION_ID: adkMetadataKey("session_id"),
  INVOCATION_ID: adkMetadataKey("invocation_id"),
  AUTHOR: adkMetadataKey("author"),
  EVENT_ID: adkMetadataKey("event_id"),
  BRANCH: adkMetadataKey("branch"),
  ERROR_MESSAGE: adkMetadataKey("error_message"),
  USAGE_METADATA: adkMetadataKey("usage_metadata"),
  /** A streamed chunk (a partial event); clients should not keep it. */
  PARTIAL: adkMetadataKey("partial"),
  /** On a text part: the text is a model thought. */
  THOUGHT: adkMetadataKey("thought"),
  /** On a part: the model's thought signature (base64). */
  THOUGHT_SIGNATURE: adkMetadataKey("thought_signature"),
} as const;
export type AdkMetadataKey = (typeof AdkMetadataKey)[keyof typeof AdkMetadataKey];
