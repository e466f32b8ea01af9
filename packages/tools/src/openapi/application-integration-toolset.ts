import { BaseToolset, ConfigurationError, type BaseTool, type ReadonlyContext, type ToolFilter } from "@agentkit/core";
import { readBodyLimited, ResponseTooLargeError } from "@agentkit/core/internal";
import { z } from "zod";
import {
  connectorOperations,
  ENTITY_OPERATION_NAMES,
  type ConnectionDetails,
  type EntityOperation,
} from "./connector-operations.js";
import { CredentialsHelper } from "./credentials-helper.js";
import { IntegrationError } from "./openapi-error.js";
import { OpenApiToolset } from "./openapi-toolset.js";
import { DEFAULT_MAX_RESPONSE_BYTES, RestApiTool, type RestCallConfig } from "./rest-api-tool.js";

const name = z.string().regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '.', '_' or '-'");

const optionsSchema = z
  .object({
    project: name,
    location: name,
    /** An Application Integration: its API triggers become tools. */
    integration: name.optional(),
    /** Trigger ids of the integration (e.g. `api_trigger/my_trigger`); default: all. */
    triggers: z.array(z.string().min(1)).optional(),
    /** An Integration Connectors connection: its entity operations and actions become tools. */
    connection: name.optional(),
    /** Entity → operations (LIST, GET, CREATE, UPDATE, DELETE; an empty list means all). */
    entityOperations: z
      .record(z.string().min(1), z.array(z.enum(ENTITY_OPERATION_NAMES as [EntityOperation, ...EntityOperation[]])))
      .optional(),
    actions: z.array(z.string().min(1)).optional(),
    /** Service-account key (JSON text); exchanged for access tokens. */
    serviceAccountJson: z.string().min(1).optional(),
    /** An access token, or a function returning a current one (instead of serviceAccountJson). */
    accessToken: z
      .union([z.string().min(1), z.custom<() => Promise<string>>((v) => typeof v === "function")])
      .optional(),
    /** OAuth token endpoint for serviceAccountJson (default Google's). */
    tokenUrl: z.url().optional(),
    /** Default `https://{location}-integrations.googleapis.com`. */
    integrationsBaseUrl: z.url().optional(),
    /** Default `https://connectors.googleapis.com`. */
    connectorsBaseUrl: z.url().optional(),
    toolNamePrefix: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .optional(),
    /** Appended to every tool description. */
    toolInstructions: z.string().optional(),
    toolFilter: z.custom<ToolFilter>((v) => Array.isArray(v) || typeof v === "function").optional(),
    fetch: z.custom<typeof globalThis.fetch>((v) => typeof v === "function").optional(),
    timeoutMs: z.number().int().positive().default(60_000),
    /** Bytes of an answer read at most, setup calls and tool calls (default 10 MiB). */
    maxResponseBytes: z.number().int().positive().default(DEFAULT_MAX_RESPONSE_BYTES),
  })
  .strict();

export type ApplicationIntegrationToolsetOptions = z.input<typeof optionsSchema>;

/**
 * Tools for an Application Integration (from the OpenAPI spec the Integrations API generates
 * for its API triggers) or for an Integration Connectors connection (entity operations and
 * actions, run through the `ExecuteConnection` integration). The description is fetched on
 * the first `getTools()` and cached.
 */
export class ApplicationIntegrationToolset extends BaseToolset {
  private readonly o: z.output<typeof optionsSchema>;
  private readonly token: () => Promise<string>;
  private tools?: Promise<BaseTool[]>;

  constructor(options: ApplicationIntegrationToolsetOptions) {
    const parsed = optionsSchema.safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid ApplicationIntegrationToolset options: ${detail}.`);
    }
    const o = parsed.data;
    super({ toolFilter: o.toolFilter, toolNamePrefix: o.toolNamePrefix });
    if ((o.integration === undefined) === (o.connection === undefined)) {
      throw new ConfigurationError("ApplicationIntegrationToolset needs exactly one of `integration` or `connection`.");
    }
    if (o.connection !== undefined && !o.entityOperations && !o.actions) {
      throw new ConfigurationError("A `connection` toolset needs `entityOperations` and/or `actions` to expose.");
    }
    if ((o.serviceAccountJson === undefined) === (o.accessToken === undefined)) {
      throw new ConfigurationError(
        "ApplicationIntegrationToolset needs exactly one of `serviceAccountJson` or `accessToken`.",
      );
    }
    this.o = o;
    if (o.serviceAccountJson !== undefined) {
      const helper = CredentialsHelper.fromServiceAccountJson(
        o.serviceAccountJson,
        o.tokenUrl ? { tokenUrl: o.tokenUrl } : {},
      );
      this.token = () => helper.getAccessToken();
    } else {
      const token = o.accessToken!;
      this.token = typeof token === "string" ? async () => token : token;
    }
  }

  override async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
    this.tools ??= this.load().catch((error: unknown) => {
      this.tools = undefined; // let a later call retry
      throw error;
    });
    return (await this.tools).filter((t) => this.isToolSelected(t, context));
  }

  override async close(): Promise<void> {}

  private get integrationsBase(): string {
    return (this.o.integrationsBaseUrl ?? `https://${this.o.location}-integrations.googleapis.com`).replace(/\/+$/, "");
  }

  private get parent(): string {
    return `projects/${this.o.project}/locations/${this.o.location}`;
  }

  private async load(): Promise<BaseTool[]> {
    const tools =
      this.o.integration !== undefined
        ? await this.integrationTools(this.o.integration)
        : await this.connectionTools(this.o.connection!);
    if (this.o.toolInstructions) {
      for (const tool of tools)
        (tool as { description: string }).description = `${tool.description}\n\n${this.o.toolInstructions}`;
    }
    return tools;
  }

  private async integrationTools(integration: string): Promise<BaseTool[]> {
    const body = {
      apiTriggerResources: [{ integrationResource: integration, triggerId: this.o.triggers ?? [] }],
      fileFormat: "JSON",
    };
    const answer = await this.api("POST", `${this.integrationsBase}/v1/${this.parent}:generateOpenApiSpec`, body);
    const spec = (answer as { openApiSpec?: unknown }).openApiSpec;
    if (typeof spec !== "string" || spec.length === 0)
      throw new IntegrationError(`generateOpenApiSpec for integration ${integration} returned no openApiSpec.`);
    const toolset = new OpenApiToolset({
      spec,
      baseUrl: this.integrationsBase,
      auth: { type: "bearer", token: this.token },
      timeoutMs: this.o.timeoutMs,
      maxResponseBytes: this.o.maxResponseBytes,
      ...(this.o.toolNamePrefix ? { toolNamePrefix: this.o.toolNamePrefix } : {}),
      ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
    });
    return toolset.getTools();
  }

  private async connectionTools(connection: string): Promise<BaseTool[]> {
    const connectorsBase = (this.o.connectorsBaseUrl ?? "https://connectors.googleapis.com").replace(/\/+$/, "");
    const details = (await this.api(
      "GET",
      `${connectorsBase}/v1/${this.parent}/connections/${connection}?view=BASIC`,
    )) as Record<string, unknown>;
    const conn: ConnectionDetails = {
      name: typeof details.name === "string" ? details.name : `${this.parent}/connections/${connection}`,
      serviceName: typeof details.serviceDirectory === "string" ? details.serviceDirectory : "",
      host: typeof details.host === "string" ? details.host : "",
    };
    const executePath = `/v1/${this.parent}/integrations/ExecuteConnection:execute?triggerId=api_trigger/ExecuteConnection`;
    const config: RestCallConfig = {
      baseUrl: this.integrationsBase,
      auth: { type: "bearer", token: this.token },
      headers: {},
      fetch: this.o.fetch ?? globalThis.fetch,
      timeoutMs: this.o.timeoutMs,
      maxResponseBytes: this.o.maxResponseBytes,
    };
    return connectorOperations(executePath, conn, this.o.entityOperations ?? {}, this.o.actions ?? []).map(
      ({ name: toolName, operation, fixedBody }) => {
        const full = this.o.toolNamePrefix ? `${this.o.toolNamePrefix}_${toolName}` : toolName;
        return new RestApiTool(operation, { ...config, fixedBody }, full.slice(0, 64));
      },
    );
  }

  /** One setup call to the Integrations / Connectors API. */
  private async api(method: "GET" | "POST", url: string, body?: unknown): Promise<unknown> {
    const doFetch = this.o.fetch ?? globalThis.fetch;
    const headers: Record<string, string> = {
      authorization: `Bearer ${await this.token()}`,
      accept: "application/json",
    };
    if (body !== undefined) headers["content-type"] = "application/json";
    const signal = AbortSignal.timeout(this.o.timeoutMs);
    let response: Response;
    let text: string;
    try {
      response = await doFetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal,
      });
      text = await readBodyLimited(response, { maxBytes: this.o.maxResponseBytes, signal });
    } catch (error) {
      const message =
        error instanceof ResponseTooLargeError
          ? `${method} ${url}: the response exceeded ${error.maxBytes} bytes.`
          : `${method} ${url} failed: ${(error as Error).message}`;
      throw new IntegrationError(message, { cause: error });
    }
    if (!response.ok)
      throw new IntegrationError(`${method} ${url} answered HTTP ${response.status}: ${text.slice(0, 500)}`);
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new IntegrationError(`${method} ${url} returned invalid JSON.`, { cause: error });
    }
  }
}
