/** Name of the function call asking the client to confirm a tool call (http-api.md 7.2). */
export const REQUEST_CONFIRMATION_FUNCTION_CALL_NAME = "adk_request_confirmation";
/** Name of the function call asking the client for credentials (http-api.md 7.3). */
export const REQUEST_CREDENTIAL_FUNCTION_CALL_NAME = "adk_request_credential";
/** Prefix of function-call ids the framework generates. */
export const CLIENT_FUNCTION_CALL_ID_PREFIX = "adk-";
