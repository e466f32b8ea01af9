import { z } from "zod";

function snakeToCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

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
      if (camel !== key && fields.has(camel)) {
        if (!(camel in raw)) out[camel] = value;
      } else out[key] = value;
    }
    return out;
  }, z.looseObject(shape));
}
