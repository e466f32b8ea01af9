import { parse as parseYaml } from "yaml";
import { OpenApiSpecError } from "./openapi-error.js";

export type OpenApiDocument = Record<string, unknown>;
type Json = Record<string, unknown>;

export const HTTP_METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationParameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Json;
  description?: string;
}

/** One operation with every `$ref` resolved. */
export interface ParsedOperation {
  method: HttpMethod;
  path: string;
  operationId?: string;
  summary?: string;
  description?: string;
  parameters: OperationParameter[];
  /** JSON request body schema, when the operation takes one. */
  requestBody?: { schema: Json; required: boolean; contentType: string };
  /**
   * The operation's security requirements (its own `security`, else the document's): a list of
   * alternatives, each naming `components.securitySchemes` entries and their scopes.
   */
  security?: Record<string, string[]>[];
}

/** Reads a document given as an object, JSON text or YAML text, and checks it is OpenAPI 3. */
export function loadOpenApiDocument(spec: unknown): OpenApiDocument {
  let doc: unknown = spec;
  if (typeof spec === "string") {
    try {
      doc = parseYaml(spec); // YAML is a superset of JSON
    } catch (error) {
      throw new OpenApiSpecError(`The OpenAPI spec is neither valid JSON nor YAML: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
  if (!isObject(doc)) throw new OpenApiSpecError("The OpenAPI spec must be an object (or JSON/YAML text of one).");
  if (typeof doc.openapi !== "string" || !doc.openapi.startsWith("3.")) {
    throw new OpenApiSpecError(
      `Only OpenAPI 3.x documents are supported; this one declares openapi=${JSON.stringify(doc.openapi)}.`,
    );
  }
  if (!isObject(doc.paths)) throw new OpenApiSpecError("The OpenAPI spec has no `paths` object.");
  return doc;
}

/** Every operation of the document, in document order. */
export function listOperations(doc: OpenApiDocument): ParsedOperation[] {
  const resolve = refResolver(doc);
  const operations: ParsedOperation[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths as Json)) {
    const item = resolve(rawItem);
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObject(op)) continue;
      const byKey = new Map<string, OperationParameter>();
      for (const raw of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
        const p = resolve(raw);
        if (
          !isObject(p) ||
          typeof p.name !== "string" ||
          !["path", "query", "header", "cookie"].includes(p.in as string)
        ) {
          throw new OpenApiSpecError(
            `Operation ${method.toUpperCase()} ${path} has a parameter without a valid name/in.`,
          );
        }
        // Operation-level parameters override path-level ones with the same name and location.
        byKey.set(`${p.in}:${p.name}`, {
          name: p.name,
          in: p.in as OperationParameter["in"],
          required: p.in === "path" || p.required === true,
          schema: isObject(p.schema) ? (resolve(p.schema) as Json) : { type: "string" },
          ...(typeof p.description === "string" ? { description: p.description } : {}),
        });
      }
      operations.push({
        method,
        path,
        ...(typeof op.operationId === "string" ? { operationId: op.operationId } : {}),
        ...(typeof op.summary === "string" ? { summary: op.summary } : {}),
        ...(typeof op.description === "string" ? { description: op.description } : {}),
        parameters: [...byKey.values()],
        ...jsonBody(resolve(op.requestBody)),
        ...securityOf(op.security ?? doc.security),
      });
    }
  }
  return operations;
}

function securityOf(security: unknown): Pick<ParsedOperation, "security"> {
  if (!Array.isArray(security)) return {};
  const alternatives = security
    .filter(isObject)
    .map((requirement) =>
      Object.fromEntries(
        Object.entries(requirement).map(([name, scopes]) => [
          name,
          Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === "string") : [],
        ]),
      ),
    );
  return { security: alternatives };
}

/** The document's `components.securitySchemes`, `$ref`s resolved. */
export function securitySchemes(doc: OpenApiDocument): Record<string, Json> {
  const components = isObject(doc.components) ? doc.components : {};
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  const resolve = refResolver(doc);
  const out: Record<string, Json> = {};
  for (const [name, scheme] of Object.entries(schemes)) {
    const resolved = resolve(scheme);
    if (isObject(resolved)) out[name] = resolved;
  }
  return out;
}

function jsonBody(body: unknown): Pick<ParsedOperation, "requestBody"> {
  if (!isObject(body) || !isObject(body.content)) return {};
  const types = Object.keys(body.content);
  const contentType = types.find((t) => /^application\/(.+\+)?json/.test(t)) ?? types.find((t) => t.includes("json"));
  if (!contentType) return {};
  const media = (body.content as Json)[contentType];
  const schema = isObject(media) && isObject(media.schema) ? media.schema : {};
  return { requestBody: { schema, required: body.required === true, contentType } };
}

/**
 * Returns a function that deep-resolves local `$ref`s (`#/components/...`). A reference cycle
 * becomes a plain `{ type: "object" }`, since a tool schema must be finite.
 */
function refResolver(doc: OpenApiDocument): (value: unknown) => unknown {
  const lookup = (ref: string): unknown => {
    if (!ref.startsWith("#/")) throw new OpenApiSpecError(`Only local $refs (#/...) are supported; found "${ref}".`);
    let node: unknown = doc;
    for (const raw of ref.slice(2).split("/")) {
      const key = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
      if (!isObject(node) || !(key in node)) throw new OpenApiSpecError(`Unresolvable $ref "${ref}".`);
      node = node[key];
    }
    return node;
  };
  const walk = (value: unknown, seen: string[]): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, seen));
    if (!isObject(value)) return value;
    if (typeof value.$ref === "string") {
      const ref = value.$ref;
      if (seen.includes(ref)) return { type: "object" };
      return walk(lookup(ref), [...seen, ref]);
    }
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, seen)]));
  };
  return (value) => walk(value, []);
}

/** The first server URL with its variables at their defaults, if the document names one. */
export function serverUrl(doc: OpenApiDocument): string | undefined {
  const servers = Array.isArray(doc.servers) ? doc.servers : [];
  const first = servers[0];
  if (!isObject(first) || typeof first.url !== "string") return undefined;
  const vars = isObject(first.variables) ? first.variables : {};
  return first.url.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = vars[name];
    return isObject(v) && v.default !== undefined ? String(v.default) : `{${name}}`;
  });
}

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
