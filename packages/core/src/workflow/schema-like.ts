import { z } from "zod";
import { ConfigurationError } from "../errors/agentkit-error.js";

/**
 * A schema that validates values: zod 4 or zod 3 (both have `safeParse` with the same result
 * shape), typed by what it produces.
 */
export interface SchemaLike<T = unknown> {
  safeParse(value: unknown): { success: true; data: T } | { success: false; error: { issues: readonly SchemaIssue[] } };
}

interface SchemaIssue {
  path: readonly PropertyKey[];
  message: string;
}

/** True for a zod 4 schema (zod 3 schemas lack the `_zod` internals). */
export function isZod4Schema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

/** True for a zod 3 schema. */
export function isZod3Schema(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    !("_zod" in value) &&
    "_def" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/** True for anything `parseWithSchema` accepts. */
export function isSchemaLike(value: unknown): value is SchemaLike {
  return typeof value === "object" && value !== null && typeof (value as SchemaLike).safeParse === "function";
}

/** Validates with a zod 3 or 4 schema; on failure, the issues as one line (`path: message; ...`). */
export function parseWithSchema<T>(
  schema: SchemaLike<T>,
  value: unknown,
): { success: true; data: T } | { success: false; detail: string } {
  const result = schema.safeParse(value);
  if (result.success) return { success: true, data: result.data };
  const detail = result.error.issues
    .map((i) => (i.path.length ? `${i.path.map(String).join(".")}: ${i.message}` : i.message))
    .join("; ");
  return { success: false, detail };
}

/**
 * The JSON Schema of a schema (what a model or a client is shown). Only zod 4 converts; a zod 3
 * schema gets an error that says how to convert it.
 */
export function schemaToJson(schema: SchemaLike, what: string): Record<string, unknown> {
  if (isZod3Schema(schema)) {
    throw new ConfigurationError(
      `${what} is a zod 3 schema, which cannot be turned into JSON Schema here. Build it with zod 4 (\`import { z } from "zod"\` with zod 4, or \`"zod/v4"\` from zod 3.25+), or pass a plain JSON Schema where one is accepted.`,
    );
  }
  if (!isZod4Schema(schema)) throw new ConfigurationError(`${what} must be a zod schema.`);
  try {
    const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>;
    delete json.$schema;
    return json;
  } catch (error) {
    throw new ConfigurationError(
      `${what} cannot be expressed as JSON Schema (${error instanceof Error ? error.message : String(error)}). Use JSON-compatible types.`,
      { cause: error },
    );
  }
}
