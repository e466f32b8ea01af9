import type { z } from "zod";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { RESERVED_FUNCTION_CALL_NAMES } from "../flows/confirmation-names.js";
import { zodInputJsonSchema } from "./zod-input-json-schema.js";
import { BaseTool, type ToolRunRequest } from "./base-tool.js";
import type { ToolContext } from "../context/tool-context.js";
import { deepCopy } from "../content/deep-copy.js";
import { rejectZod3Schema } from "./zod3-schema-check.js";

/**
 * A plain JSON Schema for tool arguments (e.g. from MCP or OpenAPI). It must describe an
 * object. agentkit only checks that the arguments are an object: core carries no JSON Schema
 * validator (its only dependency is zod), and such schemas usually come from a system that
 * validates on its own side. Use a zod schema to get validated, typed arguments.
 */
export interface JsonObjectSchema {
  type: "object";
  properties?: Record<string, unknown>;
  required?: string[];
  [key: string]: unknown;
}

/** What `parameters` accepts: a zod 4 object schema or a plain JSON object schema. */
export type ToolParameters = z.ZodType | JsonObjectSchema;

/** The arguments `execute` receives: the schema's output type for zod, a plain record otherwise. */
export type ToolArgs<P> = P extends z.ZodType ? z.output<P> : Record<string, unknown>;

/** Decides per call whether the user must confirm it. */
export type ConfirmationPredicate<A> = (args: A, toolContext: ToolContext) => boolean | Promise<boolean>;

export interface FunctionToolOptions<P extends ToolParameters | undefined = undefined> {
  /**
   * Letters, digits, `_` and `-`; at most 64 characters (what every provider accepts). Default:
   * the name of `execute` when it is a named function (`async function getWeather() {}` or
   * `const getWeather = async () => …`).
   */
  name?: string;
  /** What the tool does and when to call it; the model reads it. */
  description: string;
  /** Argument schema; omitted for a tool without arguments. */
  parameters?: P;
  /** Runs the call. The result is returned as is (the flow wraps non-objects as `{ result }`). */
  execute: (args: ToolArgs<P>, toolContext: ToolContext) => unknown;
  isLongRunning?: boolean;
  /** Ask the user to approve each call (or the calls the predicate selects) before running it. */
  requireConfirmation?: boolean | ConfirmationPredicate<ToolArgs<P>>;
}

const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Throws `ConfigurationError` unless the name is a valid tool name. */
export function validateToolName(name: unknown): asserts name is string {
  if (typeof name !== "string" || !TOOL_NAME_PATTERN.test(name)) {
    throw new ConfigurationError(
      `Invalid tool name ${JSON.stringify(name)}: use 1 to 64 letters, digits, underscores or hyphens (model ` +
        `providers reject other names).`,
    );
  }
  if (RESERVED_FUNCTION_CALL_NAMES.has(name)) {
    throw new ConfigurationError(
      `Invalid tool name "${name}": the framework's flow uses it to ask the client for confirmation, credentials or ` +
        `input; pick another name.`,
    );
  }
}

type AnyExecute = (args: Record<string, unknown>, toolContext: ToolContext) => unknown;
type AnyPredicate = ConfirmationPredicate<Record<string, unknown>>;

/**
 * A tool backed by a function: `new FunctionTool({ name, description, parameters: z.object({...}),
 * execute: async (args, toolContext) => result })`. Arguments are validated with the schema;
 * invalid arguments are answered with an `{ error }` response so the model can correct itself.
 * Errors thrown by `execute` propagate (the flow reports them through the tool-error callbacks).
 */
export class FunctionTool<P extends ToolParameters | undefined = undefined> extends BaseTool {
  /** The zod schema when one was given (used to validate arguments). */
  readonly parameters?: P;
  private readonly jsonSchema: Record<string, unknown>;
  private readonly zodSchema?: z.ZodType;
  private readonly executeFn: AnyExecute;
  private readonly requireConfirmation: boolean | AnyPredicate;

  constructor(options: FunctionToolOptions<P>) {
    const name = options.name ?? inferToolName(options.execute);
    validateToolName(name);
    if (typeof options.execute !== "function") {
      throw new ConfigurationError(`Tool "${name}" needs an execute function.`);
    }
    rejectZod3Schema(options.parameters, `The parameters of tool "${name}"`);
    super({ name, description: options.description ?? "", isLongRunning: options.isLongRunning });
    this.parameters = options.parameters;
    this.executeFn = options.execute as AnyExecute;
    this.requireConfirmation = (options.requireConfirmation ?? false) as boolean | AnyPredicate;
    const params = options.parameters;
    if (params === undefined) {
      this.jsonSchema = { type: "object", properties: {} };
    } else if (isZodSchema(params)) {
      this.zodSchema = params;
      this.jsonSchema = zodToParametersSchema(name, params);
    } else {
      this.jsonSchema = plainParametersSchema(name, params);
    }
  }

  /** `{ name, description, parametersJsonSchema }`; the schema is a fresh copy each time. */
  override getDeclaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parametersJsonSchema: deepCopy(this.jsonSchema) };
  }

  override async runAsync({ args, toolContext }: ToolRunRequest): Promise<unknown> {
    const parsed = this.parseArgs(args);
    if ("error" in parsed) return { error: parsed.error };

    const rule = this.requireConfirmation;
    // A rule function is awaited; a boolean rule costs no promise.
    if (typeof rule === "function" ? Boolean(await rule(parsed.args, toolContext)) : rule) {
      const confirmation = toolContext.toolConfirmation;
      if (confirmation === undefined) {
        toolContext.requestConfirmation({
          hint:
            `Please approve or reject the tool call ${this.name}() by responding with a FunctionResponse with an ` +
            `expected ToolConfirmation payload.`,
        });
        // The run pauses for the user's answer instead of letting the model react to the error.
        toolContext.actions.skipSummarization = true;
        return { error: "This tool call requires confirmation, please approve or reject." };
      }
      if (!confirmation.confirmed) return { error: "This tool call is rejected." };
    }

    return this.executeFn(parsed.args, toolContext);
  }

  private parseArgs(args: unknown): { args: Record<string, unknown> } | { error: string } {
    const input = args ?? {};
    if (this.zodSchema) {
      const result = this.zodSchema.safeParse(input);
      if (result.success) return { args: result.data as Record<string, unknown> };
      return { error: `Invalid arguments for tool ${this.name}: ${formatIssues(result.error.issues)}` };
    }
    if (typeof input !== "object" || Array.isArray(input)) {
      return { error: `Invalid arguments for tool ${this.name}: expected an object of named arguments.` };
    }
    return { args: input as Record<string, unknown> };
  }
}

/** The tool name a named `execute` function gives (not `execute` itself: a method shorthand's name). */
function inferToolName(execute: unknown): string {
  const raw = typeof execute === "function" ? execute.name.replace(/^bound /, "") : "";
  if (raw === "" || raw === "execute") {
    throw new ConfigurationError(
      "FunctionTool needs a name: pass `name`, or a named function as `execute` (e.g. `async function " +
        "getWeather(args) { … }`), whose name becomes the tool's.",
    );
  }
  return raw;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** Converts the argument schema as the model sees it (input side: defaulted fields are optional). */
function zodToParametersSchema(toolName: string, schema: z.ZodType): Record<string, unknown> {
  let json: Record<string, unknown>;
  try {
    json = zodInputJsonSchema(schema);
  } catch (error) {
    throw new ConfigurationError(
      `The parameters schema of tool "${toolName}" cannot be expressed as JSON Schema ` +
        `(${error instanceof Error ? error.message : String(error)}). Use JSON-compatible types (e.g. z.string() ` +
        `instead of z.date()).`,
      { cause: error },
    );
  }
  if (json.type !== "object") {
    throw new ConfigurationError(
      `The parameters of tool "${toolName}" must be an object schema: use z.object({ ... }).`,
    );
  }
  json.properties ??= {};
  return json;
}

function plainParametersSchema(toolName: string, schema: unknown): Record<string, unknown> {
  if (
    typeof schema !== "object" ||
    schema === null ||
    Array.isArray(schema) ||
    (schema as { type?: unknown }).type !== "object"
  ) {
    throw new ConfigurationError(
      `The parameters of tool "${toolName}" must be a zod 4 object schema (z.object({ ... })) or a JSON Schema with ` +
        `type "object".`,
    );
  }
  const { $schema: _ignored, ...rest } = deepCopy(schema) as Record<string, unknown>;
  return rest;
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const path = issue.path.map((p) => String(p)).join(".");
      return path ? `${path}: ${issue.message}` : issue.message;
    })
    .join("; ");
}
