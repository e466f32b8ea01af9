import { readFileSync } from "node:fs";
import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { ApplicationIntegrationToolset } from "./application-integration-toolset.js";
import { configPath, envValue, parseConfigArgs, rejectUnsupported, snakeKeys } from "../config-args.js";
import { ENTITY_OPERATION_NAMES, type EntityOperation } from "./connector-operations.js";

const TOOL = "ApplicationIntegrationToolset";

/**
 * The `args` of an `ApplicationIntegrationToolset` entry in a YAML agent config, in ADK's
 * field names (snake_case; camelCase also accepted). Credentials: exactly one of
 * `service_account_json` (the key's JSON text, or the key as a mapping), `sa_key_file`,
 * `access_token` or `access_token_env`.
 */
const configSchema = z.strictObject({
  project: z.string().min(1),
  location: z.string().min(1),
  integration: z.string().min(1).optional(),
  triggers: z.array(z.string().min(1)).optional(),
  connection: z.string().min(1).optional(),
  entity_operations: z
    .record(z.string().min(1), z.array(z.enum(ENTITY_OPERATION_NAMES as [EntityOperation, ...EntityOperation[]])))
    .optional(),
  actions: z.array(z.string().min(1)).optional(),
  tool_name_prefix: z.string().optional(),
  tool_instructions: z.string().optional(),
  service_account_json: z.union([z.string().min(1), z.record(z.string(), z.unknown())]).optional(),
  sa_key_file: z.string().min(1).optional(),
  access_token: z.string().min(1).optional(),
  access_token_env: z.string().min(1).optional(),
  token_url: z.url().optional(),
  integrations_base_url: z.url().optional(),
  connectors_base_url: z.url().optional(),
  tool_filter: z.array(z.string()).optional(),
  timeout: z.number().positive().optional(),
  max_response_bytes: z.number().int().positive().optional(),
});

export interface ApplicationIntegrationToolsetFromConfigOptions {
  /** Directory a relative `sa_key_file` is resolved against (default: `process.cwd()`). */
  baseDir?: string;
  fetch?: typeof globalThis.fetch;
}

/**
 * Builds an `ApplicationIntegrationToolset` from a YAML agent config's `args` (ADK's
 * `ApplicationIntegrationToolset` arguments), for the agent loader's `builtInTools` map.
 * ADK fields agentkit does not implement (`auth_scheme`, `auth_credential`, application
 * default credentials) are refused with a `ConfigurationError`, never ignored.
 */
export function applicationIntegrationToolsetFromConfig(
  args: Record<string, unknown> | undefined,
  options: ApplicationIntegrationToolsetFromConfigOptions = {},
): ApplicationIntegrationToolset {
  // Entity names and an inline key mapping keep their spelling.
  const raw = snakeKeys(args ?? {}, ["entity_operations", "service_account_json"]);
  rejectUnsupported(TOOL, raw, {
    auth_scheme:
      "connection end-user auth is not implemented; the toolset authenticates with service_account_json, sa_key_file " +
      "or access_token",
    auth_credential:
      "connection end-user auth is not implemented; the toolset authenticates with service_account_json, sa_key_file " +
      "or access_token",
  });
  const c = parseConfigArgs(TOOL, configSchema, raw);
  const credentials = (["service_account_json", "sa_key_file", "access_token", "access_token_env"] as const).filter(
    (k) => c[k] !== undefined,
  );
  if (credentials.length !== 1) {
    throw new ConfigurationError(
      `${TOOL} args need exactly one of service_account_json, sa_key_file, access_token or access_token_env ` +
        `(application default credentials are not supported); ` +
        `got ${credentials.length ? credentials.join(", ") : "none"}.`,
    );
  }
  if (c.integration !== undefined && (c.entity_operations || c.actions)) {
    throw new ConfigurationError(
      `${TOOL} args: entity_operations and actions apply to a connection, not to an integration.`,
    );
  }
  if (c.connection !== undefined && c.triggers)
    throw new ConfigurationError(`${TOOL} args: triggers apply to an integration, not to a connection.`);

  let serviceAccountJson: string | undefined;
  if (c.service_account_json !== undefined) {
    serviceAccountJson =
      typeof c.service_account_json === "string" ? c.service_account_json : JSON.stringify(c.service_account_json);
  } else if (c.sa_key_file !== undefined) {
    const file = configPath(c.sa_key_file, options.baseDir);
    try {
      serviceAccountJson = readFileSync(file, "utf8");
    } catch (error) {
      throw new ConfigurationError(`${TOOL} args: sa_key_file: cannot read ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const accessToken =
    c.access_token ??
    (c.access_token_env !== undefined ? envValue(TOOL, "access_token_env", c.access_token_env) : undefined);

  try {
    return new ApplicationIntegrationToolset({
      project: c.project,
      location: c.location,
      ...(c.integration !== undefined ? { integration: c.integration } : {}),
      ...(c.triggers ? { triggers: c.triggers } : {}),
      ...(c.connection !== undefined ? { connection: c.connection } : {}),
      ...(c.entity_operations ? { entityOperations: c.entity_operations } : {}),
      ...(c.actions ? { actions: c.actions } : {}),
      ...(c.tool_name_prefix ? { toolNamePrefix: c.tool_name_prefix } : {}),
      ...(c.tool_instructions ? { toolInstructions: c.tool_instructions } : {}),
      ...(serviceAccountJson !== undefined ? { serviceAccountJson } : {}),
      ...(accessToken !== undefined ? { accessToken } : {}),
      ...(c.token_url ? { tokenUrl: c.token_url } : {}),
      ...(c.integrations_base_url ? { integrationsBaseUrl: c.integrations_base_url } : {}),
      ...(c.connectors_base_url ? { connectorsBaseUrl: c.connectors_base_url } : {}),
      ...(c.tool_filter ? { toolFilter: c.tool_filter } : {}),
      ...(c.timeout ? { timeoutMs: Math.max(1, Math.round(c.timeout * 1000)) } : {}),
      ...(c.max_response_bytes ? { maxResponseBytes: c.max_response_bytes } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (error) {
    // The toolset's own messages use its camelCase option names; say which args they came from.
    if (error instanceof ConfigurationError) {
      const keyField = c.sa_key_file !== undefined ? `sa_key_file (${c.sa_key_file})` : "service_account_json";
      throw new ConfigurationError(`${TOOL} args: ${snakeMessage(error.message, keyField)}`, { cause: error });
    }
    throw error;
  }
}

/** `entityOperations` → `entity_operations` in a message; `serviceAccountJson` → the field the key came from. */
function snakeMessage(message: string, keyField: string): string {
  return message
    .replace(/\bserviceAccountJson\b/g, keyField)
    .replace(/\b(accessToken|entityOperations|toolNamePrefix)\b/g, (m) =>
      m.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`),
    );
}
