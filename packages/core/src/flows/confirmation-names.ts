/** Name of the function call asking the client to confirm a tool call (http-api.md 7.2). */
export const REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = "adk_request_confirmation";
/** Name of the function call asking the client for credentials (http-api.md 7.3). */
export const REQUEST_CREDENTIAL_FUNCTION_CALL_NAME = "adk_request_credential";
/** Name of the function call asking the client for input (ADK 2.0's `request_input`). */
export const REQUEST_INPUT_FUNCTION_CALL_NAME = "adk_request_input";
/** Prefix of function-call ids the framework generates. */
export const CLIENT_FUNCTION_CALL_ID_PREFIX = "adk-";

/** Calls only the framework's own flow may make: never a tool's name, never from a client. */
export const RESERVED_FUNCTION_CALL_NAMES: ReadonlySet<string> = new Set([
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_CREDENTIAL_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
]);
