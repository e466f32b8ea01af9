/**
 * The bodies a hot route's clients nearly always send, read without zod. A session create and a
 * `/run` body are a few known keys with strings, booleans and objects; zod checked them with its
 * general machinery, 5% of a new server's CPU over its first 500 flows (it runs interpreted until
 * V8 optimizes it, and its parsers are compiled at first use), about 1% of a warm one's.
 *
 * A `PlainShape` lists the keys its schema takes, in the schema's order, each with a check that
 * gives the value the schema gives (`REFUSED` for any value it does not take as it is). `plainBody`
 * answers only for a body whose every key is listed and passes; anything else (another key, a
 * snake_case spelling, a value a check refuses, a required key missing) is left to the zod schema,
 * which parses it or says what is wrong, so the errors are zod's alone. Each shape must accept
 * only what its schema accepts and give the same value: `test/plain-body.test.ts` compares
 * them on thousands of bodies.
 */
import { isJsonObject } from "./is-json-object.js";

export const REFUSED: unique symbol = Symbol("refused");

/** One key's check: the value the schema gives for `value` (`undefined` when absent), or REFUSED. */
export type PlainField = (value: unknown) => unknown;

/** The keys a schema takes (in its order) with their checks. */
export type PlainShape = Readonly<Record<string, PlainField>>;

/**
 * The body as the schema parses it (its keys in the schema's order, values as the checks give
 * them), or undefined when the schema has to read it.
 */
export function plainBody(shape: PlainShape, input: Record<string, unknown>): Record<string, unknown> | undefined {
  for (const key in input) if (!Object.hasOwn(input, key) || !Object.hasOwn(shape, key)) return undefined;
  const out: Record<string, unknown> = {};
  for (const key in shape) {
    const check = shape[key]!;
    if (!Object.hasOwn(input, key)) {
      // Absent: a key the schema requires (its check refuses undefined) is the schema's to report.
      if (check(undefined) === REFUSED) return undefined;
      continue;
    }
    const value = check(input[key]);
    if (value === REFUSED) return undefined;
    out[key] = value;
  }
  return out;
}

/** `z.string()`. */
export const plainString: PlainField = (v) => (typeof v === "string" ? v : REFUSED);

/** `z.string().min(1)`. */
export const plainNonEmptyString: PlainField = (v) => (typeof v === "string" && v.length > 0 ? v : REFUSED);

/** `z.string().trim().min(1)`: the trimmed string. */
export const plainTrimmedString: PlainField = (v) => {
  if (typeof v !== "string") return REFUSED;
  const trimmed = v.trim();
  return trimmed.length > 0 ? trimmed : REFUSED;
};

/** `z.boolean()`. */
export const plainBoolean: PlainField = (v) => (typeof v === "boolean" ? v : REFUSED);

/** A JSON object, as it is (the schemas' `jsonObject`). */
export const plainJsonObject: PlainField = (v) => (isJsonObject(v) ? v : REFUSED);

/** `.nullish()`: null and undefined as they are, anything else checked by `field`. */
export function plainNullish(field: PlainField): PlainField {
  return (v) => (v === null || v === undefined ? v : field(v));
}
