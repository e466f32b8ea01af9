import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** The OpenAPI document cannot be read or turned into tools (bad YAML/JSON, broken `$ref`, no server URL). */
export class OpenApiSpecError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("OPENAPI_SPEC_ERROR", message, options);
  }
}

/** A Google Cloud credential could not be parsed or exchanged for an access token. */
export class CredentialsError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("CREDENTIALS_ERROR", message, options);
  }
}

/** The Application Integration / Integration Connectors API refused a setup call. */
export class IntegrationError extends AgentKitError {
  constructor(message: string, options: AgentKitErrorOptions = {}) {
    super("INTEGRATION_ERROR", message, options);
  }
}
