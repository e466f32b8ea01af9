import { readFileSync } from "node:fs";
import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";
import { configPath, envValue, parseConfigArgs, rejectUnsupported, snakeKeys } from "../config-args.js";
import type { OpenApiAuth } from "./openapi-auth.js";
import { OpenApiToolset } from "./openapi-toolset.js";

const TOOL = "OpenAPIToolset";

/** A secret given inline or as the name of an environment variable (`*_env`), not both. */
const auth = z.discriminatedUnion("type", [
  z.strictObject({
    type: z.enum(["api_key", "apiKey"]),
    name: z.string().min(1),
    value: z.string().min(1).optional(),
    value_env: z.string().min(1).optional(),
    in: z.enum(["header", "query", "cookie"]).optional(),
  }),
  z.strictObject({
    type: z.literal("bearer"),
    token: z.string().min(1).optional(),
    token_env: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal("basic"),
    username: z.string(),
    password: z.string().optional(),
    password_env: z.string().min(1).optional(),
  }),
]);

/**
 * The `args` of an `OpenAPIToolset` entry in a YAML agent config, in ADK's field names
 * (snake_case; camelCase also accepted): exactly one of `spec_str` (+ `spec_str_type`),
 * `spec_dict` or `spec_path`; plus agentkit's `base_url`, `headers`, `auth`, `tool_filter`,
 * `tool_name_prefix`, `timeout` (seconds), `max_response_bytes`.
 */
const configSchema = z.strictObject({
  spec_str: z.string().min(1).optional(),
  spec_str_type: z.enum(["json", "yaml"]).optional(),
  spec_dict: z.record(z.string(), z.unknown()).optional(),
  spec_path: z.string().min(1).optional(),
  base_url: z.url({ protocol: /^https?$/ }).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  auth: auth.optional(),
  tool_filter: z.array(z.string()).optional(),
  tool_name_prefix: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' or '-'")
    .optional(),
  timeout: z.number().positive().optional(),
  max_response_bytes: z.number().int().positive().optional(),
});

export interface OpenApiToolsetFromConfigOptions {
  /** Directory a relative `spec_path` is resolved against (default: `process.cwd()`). */
  baseDir?: string;
  /** fetch implementation for the generated tools (default: global fetch). */
  fetch?: typeof globalThis.fetch;
}

/**
 * Builds an `OpenApiToolset` from a YAML agent config's `args`, for the agent loader's
 * `builtInTools` map: `tools: [{ name: OpenAPIToolset, args: { spec_str: "...",
 * spec_str_type: yaml, auth: { type: bearer, token_env: API_TOKEN } } }]`. Bad or ambiguous
 * args throw a `ConfigurationError` naming the field; a bad document an `OpenApiSpecError`.
 */
export function openApiToolsetFromConfig(
  args: Record<string, unknown> | undefined,
  options: OpenApiToolsetFromConfigOptions = {},
): OpenApiToolset {
  const raw = snakeKeys(args ?? {}, ["headers", "spec_dict"]);
  rejectUnsupported(TOOL, raw, {
    auth_scheme: "use `auth` ({ type: api_key | bearer | basic, ... })",
    auth_credential: "use `auth` ({ type: api_key | bearer | basic, ... })",
    header_provider: "use `headers` (fixed) or a code reference to an OpenApiToolset",
    ssl_verify: "TLS is always verified (use NODE_EXTRA_CA_CERTS for a private CA)",
  });
  const c = parseConfigArgs(TOOL, configSchema, raw);
  const given = (["spec_str", "spec_dict", "spec_path"] as const).filter((k) => c[k] !== undefined);
  if (given.length !== 1) {
    throw new ConfigurationError(
      `${TOOL} args need exactly one of spec_str, spec_dict or spec_path; ` +
        `got ${given.length ? given.join(", ") : "none"}.`,
    );
  }
  if (c.spec_str_type !== undefined && c.spec_dict !== undefined)
    throw new ConfigurationError(`${TOOL} args: spec_str_type: does not apply to spec_dict.`);

  let spec: string | Record<string, unknown>;
  if (c.spec_dict) spec = c.spec_dict;
  else if (c.spec_str !== undefined) spec = c.spec_str;
  else {
    const file = configPath(c.spec_path!, options.baseDir);
    try {
      spec = readFileSync(file, "utf8");
    } catch (error) {
      throw new ConfigurationError(`${TOOL} args: spec_path: cannot read ${file}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  const field = c.spec_str !== undefined ? "spec_str" : "spec_path";
  // YAML parsing also accepts JSON, so only a declared JSON document needs a strict check.
  if (typeof spec === "string" && c.spec_str_type === "json") {
    try {
      JSON.parse(spec);
    } catch (error) {
      throw new ConfigurationError(
        `${TOOL} args: ${field}: spec_str_type is json but the text is not valid JSON (${(error as Error).message}).`,
        { cause: error },
      );
    }
  }

  return new OpenApiToolset({
    spec,
    ...(c.base_url ? { baseUrl: c.base_url } : {}),
    ...(c.headers ? { headers: c.headers } : {}),
    ...(c.auth ? { auth: toAuth(c.auth) } : {}),
    ...(c.tool_filter ? { toolFilter: c.tool_filter } : {}),
    ...(c.tool_name_prefix ? { toolNamePrefix: c.tool_name_prefix } : {}),
    ...(c.timeout ? { timeoutMs: Math.max(1, Math.round(c.timeout * 1000)) } : {}),
    ...(c.max_response_bytes ? { maxResponseBytes: c.max_response_bytes } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/** One secret from its inline value or its environment variable: exactly one of the two. */
function secret(inline: string | undefined, envName: string | undefined, field: string): string {
  if ((inline === undefined) === (envName === undefined)) {
    throw new ConfigurationError(`${TOOL} args: auth: needs exactly one of ${field} or ${field}_env.`);
  }
  return inline ?? envValue(TOOL, `auth.${field}_env`, envName!);
}

function toAuth(a: z.output<typeof auth>): OpenApiAuth {
  switch (a.type) {
    case "api_key":
    case "apiKey":
      return {
        type: "apiKey",
        name: a.name,
        value: secret(a.value, a.value_env, "value"),
        ...(a.in ? { in: a.in } : {}),
      };
    case "bearer":
      return { type: "bearer", token: secret(a.token, a.token_env, "token") };
    case "basic":
      return { type: "basic", username: a.username, password: secret(a.password, a.password_env, "password") };
  }
}
