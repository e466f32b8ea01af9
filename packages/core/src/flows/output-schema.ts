import type { z } from "zod";
import type { FunctionDeclaration } from "../content/generate-content-config.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { BaseTool, type ToolRunRequest } from "../tools/base-tool.js";
import { deepCopy } from "../content/deep-copy.js";
import { rejectZod3Schema } from "../tools/zod3-schema-check.js";
import { zodInputJsonSchema } from "../tools/zod-input-json-schema.js";

/** What `outputSchema` accepts: a zod 4 object schema or a JSON Schema with type "object". */
export type OutputSchema = z.ZodType | Record<string, unknown>;

/** Name of the tool an agent with tools and an output schema answers through. */
export const SET_MODEL_RESPONSE_TOOL_NAME = "set_model_response";

export const SET_MODEL_RESPONSE_INSTRUCTION =
  `IMPORTANT: You have access to a tool named ` +
  `\`${SET_MODEL_RESPONSE_TOOL_NAME}\`. When you have finished your work and are ready to give your final response, ` +
  `you MUST call \`${SET_MODEL_RESPONSE_TOOL_NAME}\` with the response as its arguments, following its parameter ` +
  `schema exactly. Do not answer with plain text for the final response.`;

/** The structured output did not match the agent's output schema. */
export class OutputValidationError extends AgentKitError {
  constructor(message: string) {
    super("OUTPUT_SCHEMA_VALIDATION_FAILED", message);
  }
}

export function isZodSchema(value: unknown): value is z.ZodType {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** The schema as JSON Schema (what the model is asked to produce). */
export function outputSchemaToJson(agentName: string, schema: OutputSchema): Record<string, unknown> {
  rejectZod3Schema(schema, `The outputSchema of agent "${agentName}"`);
  let json: Record<string, unknown>;
  if (isZodSchema(schema)) {
    try {
      json = zodInputJsonSchema(schema);
    } catch (error) {
      throw new ConfigurationError(
        `The outputSchema of agent "${agentName}" cannot be expressed as JSON Schema ` +
          `(${error instanceof Error ? error.message : String(error)}). Use JSON-compatible zod types.`,
        { cause: error },
      );
    }
  } else if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
    const { $schema: _ignored, ...rest } = deepCopy(schema);
    json = rest;
  } else {
    json = {};
  }
  if (json.type !== "object") {
    throw new ConfigurationError(
      `The outputSchema of agent "${agentName}" must describe an object: use z.object({ ... }) or a JSON Schema with ` +
        `type "object".`,
    );
  }
  return json;
}

/**
 * Parses the model's structured answer. Zod schemas validate (and apply defaults); plain JSON
 * schemas only require a JSON object (core carries no JSON Schema validator).
 */
export function validateStructuredOutput(schema: OutputSchema, value: unknown): Record<string, unknown> {
  if (isZodSchema(schema)) {
    const result = schema.safeParse(value);
    if (!result.success) {
      const detail = result.error.issues
        .map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
        .join("; ");
      throw new OutputValidationError(`The response does not match the output schema: ${detail}`);
    }
    return result.data as Record<string, unknown>;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new OutputValidationError("The response does not match the output schema: expected a JSON object.");
  }
  return value as Record<string, unknown>;
}

/** Parses final text as JSON and validates it. */
export function parseStructuredOutput(schema: OutputSchema, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new OutputValidationError("The response is not valid JSON, but the agent has an output schema.");
  }
  return validateStructuredOutput(schema, value);
}

/**
 * The tool an agent with both tools and an output schema gives its final answer through; its
 * arguments are the schema. A call with invalid arguments throws, so the model gets an error
 * response and can try again.
 */
export class SetModelResponseTool extends BaseTool {
  private readonly schema: OutputSchema;
  private readonly jsonSchema: Record<string, unknown>;

  constructor(agentName: string, schema: OutputSchema) {
    super({
      name: SET_MODEL_RESPONSE_TOOL_NAME,
      description:
        "Set your final response using the required output schema. Call this once you have the final answer.",
    });
    this.schema = schema;
    this.jsonSchema = outputSchemaToJson(agentName, schema);
  }

  override getDeclaration(): FunctionDeclaration {
    return { name: this.name, description: this.description, parametersJsonSchema: deepCopy(this.jsonSchema) };
  }

  override async runAsync({ args }: ToolRunRequest): Promise<unknown> {
    return validateStructuredOutput(this.schema, args ?? {});
  }
}
