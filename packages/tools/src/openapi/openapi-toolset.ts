import {
  BaseToolset,
  ConfigurationError,
  type AuthCredential,
  type AuthScheme,
  type BaseTool,
  type ReadonlyContext,
  type ToolFilter,
} from "@agentkit/core";
import { z } from "zod";
import { openApiAuthSchema, type OpenApiAuth } from "./openapi-auth.js";
import { OpenApiSpecError } from "./openapi-error.js";
import {
  listOperations,
  loadOpenApiDocument,
  securitySchemes,
  serverUrl,
  type OpenApiDocument,
} from "./openapi-spec.js";
import { checkCredentialNames, toAuthSchemes, type OpenApiSecurityConfig } from "./openapi-security.js";
import { DEFAULT_MAX_RESPONSE_BYTES, RestApiTool, operationToolName, type RestCallConfig } from "./rest-api-tool.js";

const optionsSchema = z
  .object({
    /** The OpenAPI 3 document: an object, or its JSON or YAML text. */
    spec: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
    /** Overrides the document's first server URL (needed when the document has none or a relative one). */
    baseUrl: z.url().optional(),
    auth: openApiAuthSchema.optional(),
    /** Extra headers sent with every call. */
    headers: z.record(z.string(), z.string()).optional(),
    toolFilter: z.custom<ToolFilter>((v) => Array.isArray(v) || typeof v === "function").optional(),
    toolNamePrefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    /** fetch implementation (default: global fetch). */
    fetch: z.custom<typeof globalThis.fetch>((v) => typeof v === "function").optional(),
    /** Per-call timeout (default 30 s); a timeout is returned to the model as an error. */
    timeoutMs: z.number().int().positive().default(30_000),
    /** Bytes of an answer read at most (default 10 MiB); a larger one is returned to the model as an error. */
    maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
    /** Credentials for the spec's `components.securitySchemes`, by scheme name (per-user OAuth2, OIDC, API keys...). */
    authCredentials: z.record(z.string(), z.custom<AuthCredential>(isCredential)).optional(),
    /** One scheme for every operation, whatever the spec says (ADK's `authScheme`). */
    authScheme: z.custom<AuthScheme>((v) => typeof v === "object" && v !== null && "type" in v).optional(),
    /** The credential for `authScheme` (ADK's `authCredential`). */
    authCredential: z.custom<AuthCredential>(isCredential).optional(),
  })
  .strict();

function isCredential(v: unknown): boolean {
  return typeof v === "object" && v !== null && typeof (v as { authType?: unknown }).authType === "string";
}

export type OpenApiToolsetOptions = z.input<typeof optionsSchema> & { auth?: OpenApiAuth };

/**
 * Turns every operation of an OpenAPI 3 document into a `RestApiTool` (named from its
 * `operationId` in snake_case, else from method and path) that calls the API with the
 * configured auth. The document is read once, in the constructor, so bad specs fail early.
 */
export class OpenApiToolset extends BaseToolset {
  readonly document: OpenApiDocument;
  private readonly tools: RestApiTool[];

  constructor(options: OpenApiToolsetOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid OpenApiToolset options: ${detail}.`);
    }
    const o = parsed.data;
    super({ toolFilter: o.toolFilter, toolNamePrefix: o.toolNamePrefix });
    this.document = loadOpenApiDocument(o.spec);
    const baseUrl = o.baseUrl ?? serverUrl(this.document);
    if (!baseUrl || !/^https?:\/\//.test(baseUrl) || /\{[^}]+\}/.test(baseUrl)) {
      throw new OpenApiSpecError(
        `No usable server URL: the document's first server is ${JSON.stringify(baseUrl ?? null)}. Pass baseUrl (an ` +
          `absolute http(s) URL).`,
      );
    }
    const schemes = toAuthSchemes(securitySchemes(this.document));
    checkCredentialNames(o.authCredentials ?? {}, schemes);
    const security: OpenApiSecurityConfig | undefined =
      o.authScheme || o.authCredentials
        ? {
            schemes,
            credentials: o.authCredentials ?? {},
            ...(o.authScheme ? { override: { authScheme: o.authScheme, authCredential: o.authCredential } } : {}),
          }
        : undefined;
    const config: RestCallConfig = {
      baseUrl,
      ...(o.auth ? { auth: o.auth } : {}),
      ...(security ? { security } : {}),
      headers: o.headers ?? {},
      fetch: o.fetch ?? globalThis.fetch,
      timeoutMs: o.timeoutMs,
      maxResponseBytes: o.maxResponseBytes,
    };
    const names = new Set<string>();
    this.tools = listOperations(this.document).map((op) => {
      let name = operationToolName(op);
      if (o.toolNamePrefix) name = `${o.toolNamePrefix}_${name}`.slice(0, 64);
      if (names.has(name))
        throw new OpenApiSpecError(`Two operations map to the tool name "${name}"; give them distinct operationIds.`);
      names.add(name);
      return new RestApiTool(op, config, name);
    });
  }

  override async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    return this.tools.filter((t) => this.isToolSelected(t, context));
  }

  /** The tool for one name, if the document has it. */
  getTool(name: string): RestApiTool | undefined {
    return this.tools.find((t) => t.name === name);
  }

  // Stateless HTTP: nothing to release.
  override async close(): Promise<void> {}
}
