// Public API of @agentkit/tools/openapi.
export { OpenApiToolset, type OpenApiToolsetOptions } from "./openapi-toolset.js";
export { RestApiTool, operationToolName } from "./rest-api-tool.js";
export type { OpenApiAuth } from "./openapi-auth.js";
export {
  loadOpenApiDocument,
  listOperations,
  type OpenApiDocument,
  type ParsedOperation,
  type OperationParameter,
} from "./openapi-spec.js";
export { OpenApiSpecError, CredentialsError, IntegrationError } from "./openapi-error.js";
export {
  CredentialsHelper,
  type ServiceAccountCredentials,
  type CredentialsHelperOptions,
} from "./credentials-helper.js";
export {
  ApplicationIntegrationToolset,
  type ApplicationIntegrationToolsetOptions,
} from "./application-integration-toolset.js";
export { openApiToolsetFromConfig, type OpenApiToolsetFromConfigOptions } from "./openapi-toolset-from-config.js";
export {
  applicationIntegrationToolsetFromConfig,
  type ApplicationIntegrationToolsetFromConfigOptions,
} from "./application-integration-toolset-from-config.js";
