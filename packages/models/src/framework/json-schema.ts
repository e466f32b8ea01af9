import type { FunctionDeclaration, LlmRequest, Schema } from "@agentkit/core";

/**
 * A Gemini schema as plain JSON Schema: lower-case `type`, `nullable` folded into the type,
 * numeric-string limits parsed, Gemini-only keys dropped (recursive).
 */
export function geminiSchemaToJson(schema: Schema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined || key === "nullable" || key === "propertyOrdering") continue;
    if (key === "type") out.type = typeof value === "string" ? value.toLowerCase() : value;
    else if (key === "items") out.items = geminiSchemaToJson(value as Schema);
    else if (key === "anyOf") out.anyOf = (value as Schema[]).map(geminiSchemaToJson);
    else if (key === "properties") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, Schema>).map(([n, s]) => [n, geminiSchemaToJson(s)]),
      );
    } else if (/^(min|max)(Items|Length|Properties)$/.test(key))
      out[key] = typeof value === "string" ? Number(value) : value;
    else out[key] = value;
  }
  if (schema.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  return out;
}

/** The parameters of a declaration as JSON Schema (an empty object schema when it has none). */
export function parametersOf(declaration: FunctionDeclaration): Record<string, unknown> {
  if (declaration.parametersJsonSchema !== undefined && declaration.parametersJsonSchema !== null) {
    return declaration.parametersJsonSchema as Record<string, unknown>;
  }
  if (declaration.parameters) return geminiSchemaToJson(declaration.parameters);
  return { type: "object", properties: {} };
}

/** The JSON schema the response must follow, if the request asks for one. */
export function responseSchemaOf(request: LlmRequest): Record<string, unknown> | undefined {
  const { responseJsonSchema, responseSchema } = request.config;
  if (responseJsonSchema !== undefined && responseJsonSchema !== null)
    return responseJsonSchema as Record<string, unknown>;
  return responseSchema ? geminiSchemaToJson(responseSchema) : undefined;
}

/** All function declarations of the request, with the index of the tool they came from. */
export function functionDeclarationsOf(request: LlmRequest): FunctionDeclaration[] {
  return (request.config.tools ?? []).flatMap((tool) => tool.functionDeclarations ?? []);
}

/** Names of the built-in (non-function) tools of a request, e.g. `googleSearch`, with their index. */
export function builtInToolsOf(request: LlmRequest): Array<{ index: number; name: string }> {
  const out: Array<{ index: number; name: string }> = [];
  (request.config.tools ?? []).forEach((tool, index) => {
    for (const [key, value] of Object.entries(tool)) {
      if (key !== "functionDeclarations" && value !== undefined) out.push({ index, name: key });
    }
  });
  return out;
}

/** Gemini `toolConfig.functionCallingConfig`, read defensively. */
export interface FunctionCallingChoice {
  mode: "AUTO" | "ANY" | "NONE" | undefined;
  allowed: string[];
}

export function functionCallingChoice(toolConfig: Record<string, unknown> | undefined): FunctionCallingChoice {
  const calling = toolConfig?.functionCallingConfig as { mode?: unknown; allowedFunctionNames?: unknown } | undefined;
  const raw = typeof calling?.mode === "string" ? calling.mode.toUpperCase() : undefined;
  const mode = raw === "AUTO" || raw === "NONE" ? raw : raw === "ANY" || raw === "VALIDATED" ? "ANY" : undefined;
  const allowed = Array.isArray(calling?.allowedFunctionNames)
    ? calling.allowedFunctionNames.filter((n): n is string => typeof n === "string")
    : [];
  return { mode, allowed };
}
