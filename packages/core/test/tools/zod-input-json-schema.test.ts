import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import { zodInputJsonSchema } from "../../src/tools/zod-input-json-schema.js";

describe("zodInputJsonSchema", () => {
  const schema = z.object({ city: z.string().describe("The city."), days: z.number().default(1) });

  it("is zod's input-side JSON Schema without $schema", () => {
    const { $schema: _dropped, ...expected } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
    expect(zodInputJsonSchema(schema)).toEqual(expected);
    expect(zodInputJsonSchema(schema)).not.toHaveProperty("$schema");
    // The input side: a defaulted field is not required.
    expect(zodInputJsonSchema(schema).required).toEqual(["city"]);
  });

  it("gives a fresh copy each call: editing one changes neither the next nor the schema's", () => {
    const first = zodInputJsonSchema(schema);
    (first.properties as Record<string, unknown>).injected = { type: "string" };
    first.description = "edited";
    const second = zodInputJsonSchema(schema);
    expect(second).not.toBe(first);
    expect(second.properties).not.toHaveProperty("injected");
    expect(second).not.toHaveProperty("description");
  });

  it("converts each schema object once: a schema made by .describe() is a new one, converted anew", () => {
    const described = schema.describe("A forecast request.");
    expect(zodInputJsonSchema(described).description).toBe("A forecast request.");
    expect(zodInputJsonSchema(schema)).not.toHaveProperty("description");
  });

  it("throws what zod throws for a type JSON Schema cannot express", () => {
    expect(() => zodInputJsonSchema(z.object({ when: z.date() }))).toThrow();
  });
});
