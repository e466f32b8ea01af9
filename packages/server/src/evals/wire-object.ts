import { z } from "zod";
import { setOwn, snakeToCamel } from "@agentkit/core/internal";

/**
 * An object schema that also accepts its fields in snake_case, and null for an absent field;
 * unknown keys are kept.
 */
export function wireObject<T extends z.ZodRawShape>(shape: T) {
  const fields = new Set(Object.keys(shape));
  return z.preprocess((raw) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return raw;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(raw)) {
      const camel = snakeToCamel(key);
      // Pydantic writes unset optional fields as null (ADK Python's files): null means absent.
      if (value === null && fields.has(camel)) continue;
      // Own keys only: `__proto__` stays a key, and an inherited name hides no spelling.
      if (camel !== key && fields.has(camel)) {
        if (!Object.hasOwn(raw, camel)) setOwn(out, camel, value);
      } else setOwn(out, key, value);
    }
    return out;
  }, z.looseObject(shape));
}
