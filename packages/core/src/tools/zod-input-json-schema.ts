import { z } from "zod";
import { deepCopy } from "../content/deep-copy.js";

/** Each schema's conversion, kept: zod schemas are immutable (`.describe()` and co. make new ones). */
const converted = new WeakMap<z.ZodType, Record<string, unknown>>();

/**
 * A zod schema as the JSON Schema a model reads: draft 2020-12, the input side (defaulted fields
 * are optional), without `$schema`. Converted once per schema object (a conversion costs tens of
 * microseconds, and tools declare themselves on every request), a fresh copy each call, so the
 * caller may edit it. Metadata registered on a schema after its first conversion is not seen, as
 * a `FunctionTool`'s schema was always converted when the tool was made. Throws what
 * `z.toJSONSchema` throws for a type JSON Schema cannot express.
 */
export function zodInputJsonSchema(schema: z.ZodType): Record<string, unknown> {
  let json = converted.get(schema);
  if (json === undefined) {
    // Left out by a rest copy, not deleted: `delete` would put the object in V8's slow
    // dictionary mode, and every request copies it.
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" }) as Record<
      string,
      unknown
    >;
    json = rest;
    converted.set(schema, json);
  }
  return deepCopy(json);
}
