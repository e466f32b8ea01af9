import { BaseTool, type FunctionDeclaration, type ToolRunRequest } from "@agentkit/core";
import { AbortScope, readBodyLimited, ResponseTooLargeError, validateToolName } from "@agentkit/core/internal";
import { applyAuth, type openApiAuthSchema } from "./openapi-auth.js";
import { isUserToken, operationAuthConfigs, resolveUserAuth, type OpenApiSecurityConfig } from "./openapi-security.js";
import { isObject, type OperationParameter, type ParsedOperation } from "./openapi-spec.js";
import type { z } from "zod";
import { deepCopy } from "@agentkit/core/internal";

/** What a tool needs to call its endpoint (shared by every tool of one toolset). */
export interface RestCallConfig {
  baseUrl: string;
  auth?: z.output<typeof openApiAuthSchema>;
  headers: Record<string, string>;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  /** Bytes of an answer read at most (default `DEFAULT_MAX_RESPONSE_BYTES`); past it the call is an `{ error }`. */
  maxResponseBytes?: number;
  /** Body fields always sent (used by the connector toolset for its fixed routing fields). */
  fixedBody?: Record<string, unknown>;
  /** Per-user credentials for the spec's security schemes (see docs/auth.md). */
  security?: OpenApiSecurityConfig;
}

/**
 * Default limit of a REST answer: 10 MiB is far past what a model's context can use, yet keeps
 * one broken or hostile endpoint from filling the server's memory.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

// JSON Schema keys models accept; OpenAPI-only keys (example, xml, readOnly, x-…) are dropped.
const SCHEMA_KEYS = new Set([
  "type",
  "format",
  "description",
  "enum",
  "items",
  "properties",
  "required",
  "nullable",
  "default",
  "anyOf",
  "oneOf",
  "allOf",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "pattern",
  "title",
  "additionalProperties",
]);

function cleanSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(cleanSchema);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(key)) continue;
    if (key === "properties" && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cleanSchema(v)]));
    else if (key === "enum" || key === "default" || key === "required") out[key] = value;
    else out[key] = cleanSchema(value);
  }
  return out;
}

type ArgTarget = { kind: "param"; param: OperationParameter } | { kind: "bodyField"; field: string } | { kind: "body" };

/** Tool name from an operationId (snake_case) or, without one, from method and path. */
export function operationToolName(op: ParsedOperation): string {
  const raw = op.operationId ?? `${op.method}_${op.path}`;
  const snake = raw
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[^A-Za-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .toLowerCase();
  return (snake || op.method).slice(0, 64);
}

/**
 * One OpenAPI operation as a tool. Arguments are the path/query/header parameters plus the
 * JSON body (an object body's properties become top-level arguments; other bodies are `body`).
 * A non-2xx answer, a timeout, an answer over `maxResponseBytes` (cancelled, not read on) or a
 * network failure is returned as `{ error, status? }` so the model sees it; an aborted run throws.
 */
export class RestApiTool extends BaseTool {
  readonly operation: ParsedOperation;
  private readonly config: RestCallConfig;
  private readonly targets = new Map<string, ArgTarget>();
  private readonly schema: Record<string, unknown>;

  constructor(operation: ParsedOperation, config: RestCallConfig, name = operationToolName(operation)) {
    validateToolName(name);
    super({
      name,
      description: operation.description ?? operation.summary ?? `${operation.method.toUpperCase()} ${operation.path}`,
    });
    this.operation = operation;
    this.config = config;
    const properties: Record<string, unknown> = {};
    const required: string[] = [];
    for (const param of operation.parameters) {
      if (param.in === "cookie") continue;
      this.targets.set(param.name, { kind: "param", param });
      properties[param.name] = {
        ...(cleanSchema(param.schema) as object),
        ...(param.description ? { description: param.description } : {}),
      };
      if (param.required) required.push(param.name);
    }
    const body = operation.requestBody;
    if (body) {
      const bodySchema = body.schema;
      const fields =
        bodySchema.type === "object" || isObject(bodySchema.properties)
          ? ((bodySchema.properties as Record<string, unknown> | undefined) ?? {})
          : undefined;
      const fixed = new Set(Object.keys(config.fixedBody ?? {}));
      if (fields && Object.keys(fields).every((f) => !this.targets.has(f))) {
        const bodyRequired = Array.isArray(bodySchema.required) ? (bodySchema.required as string[]) : [];
        for (const [field, schema] of Object.entries(fields)) {
          if (fixed.has(field)) continue;
          this.targets.set(field, { kind: "bodyField", field });
          properties[field] = cleanSchema(schema);
          if (body.required && bodyRequired.includes(field)) required.push(field);
        }
      } else {
        this.targets.set("body", { kind: "body" });
        properties.body = cleanSchema(bodySchema);
        if (body.required) required.push("body");
      }
    }
    this.schema = { type: "object", properties, ...(required.length ? { required } : {}) };
  }

  override getDeclaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parametersJsonSchema: deepCopy(this.schema) };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const signal = toolContext?.invocation.signal;
    const configs = this.config.security ? operationAuthConfigs(this.operation, this.config.security) : [];
    if (configs.length === 0) return this.call(args ?? {}, signal);
    if (!toolContext) return { error: `${this.name} needs the user's credentials: run it through a Runner.` };
    const auth = await resolveUserAuth(configs, toolContext);
    if (auth.kind === "pending") return auth.response;
    const result = await this.call(args ?? {}, signal, auth.apply);
    // A refused user token (revoked, or expired early): forget it and ask the user again.
    const refused = (result as { status?: unknown }).status === 401;
    const tokens = configs.filter(isUserToken);
    if (refused && tokens.length > 0) {
      for (const config of tokens) {
        await toolContext.deleteCredential(config);
        toolContext.requestCredential(config);
      }
      return { pending: true, message: "The API refused the user's token; waiting for the user to authorize again." };
    }
    return result;
  }

  /**
   * Calls the endpoint with these arguments (also usable without a runner). `applyUserAuth` adds
   * the user's credentials (what `runAsync` resolved).
   */
  async call(
    args: Record<string, unknown>,
    signal?: AbortSignal,
    applyUserAuth?: (url: URL, headers: Headers) => void,
  ): Promise<unknown> {
    const missing = (this.schema.required as string[] | undefined)?.filter((k) => args[k] === undefined) ?? [];
    if (missing.length) return { error: `Missing required argument(s) for ${this.name}: ${missing.join(", ")}.` };

    const { config, operation } = this;
    let path = operation.path;
    const query: [string, string][] = [];
    const headers = new Headers({ accept: "application/json, text/plain;q=0.9, */*;q=0.5", ...config.headers });
    let body: unknown;
    const bodyFields: Record<string, unknown> = { ...(config.fixedBody ?? {}) };
    let hasBodyFields = Object.keys(bodyFields).length > 0;
    for (const [key, value] of Object.entries(args)) {
      const target = this.targets.get(key);
      if (!target || value === undefined) continue;
      if (target.kind === "body") body = value;
      else if (target.kind === "bodyField") {
        bodyFields[target.field] = value;
        hasBodyFields = true;
      } else if (target.param.in === "path") path = path.replaceAll(`{${key}}`, encodeURIComponent(String(value)));
      else if (target.param.in === "query") {
        for (const v of Array.isArray(value) ? value : [value])
          query.push([key, typeof v === "object" ? JSON.stringify(v) : String(v)]);
      } else headers.set(key, typeof value === "object" ? JSON.stringify(value) : String(value));
    }
    if (hasBodyFields) body = bodyFields;

    const url = new URL(config.baseUrl.replace(/\/+$/, "") + path);
    for (const [k, v] of query) url.searchParams.append(k, v);
    await applyAuth(config.auth, url, headers);
    applyUserAuth?.(url, headers);
    if (body !== undefined) headers.set("content-type", operation.requestBody?.contentType ?? "application/json");

    // The call's own signal: the run's, and its time bound (no composite signal left on the run's).
    const call = AbortScope.under(signal).abortAfter(config.timeoutMs);
    const maxBytes = config.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const what = `${operation.method.toUpperCase()} ${url.pathname}`;
    let response: Response;
    let text: string;
    try {
      response = await config.fetch(url, {
        method: operation.method.toUpperCase(),
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: call.signal,
      });
      text = await readBodyLimited(response, { maxBytes, signal: call.signal });
    } catch (error) {
      // The model gets every failure as `{ error }`; only the run's own abort is thrown.
      if (signal?.aborted) throw error;
      if (call.timedOut) return { error: `${what} timed out after ${config.timeoutMs} ms.` };
      if (error instanceof ResponseTooLargeError) return { error: `${what}: the response exceeded ${maxBytes} bytes.` };
      return { error: `${what} failed: ${(error as Error).message}` };
    } finally {
      call.release();
    }
    let data: unknown = text;
    if (/json/.test(response.headers.get("content-type") ?? "") && text) {
      try {
        data = JSON.parse(text);
      } catch {
        // keep the text
      }
    }
    if (!response.ok) {
      return {
        error: `HTTP ${response.status} ${response.statusText} from ${what}`,
        status: response.status,
        body: data,
      };
    }
    return isObject(data) ? data : { result: data };
  }
}
