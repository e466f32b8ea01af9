import { ConfigurationError } from "../errors/agentkit-error.js";
import { isZod3Schema } from "../workflow/schema-like.js";

/**
 * Refuses a zod 3 schema where a model must be shown JSON Schema: core converts with zod 4's
 * `z.toJSONSchema`, which cannot read zod 3 schemas, and without this check a zod 3 schema would
 * be taken for a malformed JSON Schema. The message says how to convert.
 */
export function rejectZod3Schema(value: unknown, where: string): void {
  if (!isZod3Schema(value)) return;
  throw new ConfigurationError(
    `${where} is a zod 3 schema; agentkit needs zod 4 schemas (or plain JSON Schema). Import z from "zod" with ` +
      `zod 4 installed, or from "zod/v4" if your project stays on zod 3.25+, and build the schema with it; or ` +
      `convert it to JSON Schema first (e.g. with zod-to-json-schema) and pass that object.`,
  );
}
