import { isAbsolute, resolve } from "node:path";
import { ConfigurationError } from "@agentkit/core";
import type { z } from "zod";

/**
 * Shared by the `*FromConfig` factories (YAML agent configs): ADK's field names are
 * snake_case; camelCase is accepted too. Keys under `keep` (user maps such as `headers` or
 * entity names) are left as written; other nested objects are converted up to `depth`.
 */
export function snakeKeys(
  value: Record<string, unknown>,
  keep: readonly string[] = [],
  depth = 2,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const name = key.replace(/[A-Z]/g, (ch) => `_${ch.toLowerCase()}`);
    if (keep.includes(name) || depth <= 0) out[name] = v;
    else if (Array.isArray(v))
      out[name] = v.map((item) => (isPlainObject(item) ? snakeKeys(item, keep, depth - 1) : item));
    else out[name] = isPlainObject(v) ? snakeKeys(v, keep, depth - 1) : v;
  }
  return out;
}

/** Validates `args` against a factory's schema; a failure is a `ConfigurationError` naming each bad field. */
export function parseConfigArgs<S extends z.ZodType>(
  toolName: string,
  schema: S,
  args: Record<string, unknown>,
): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .map((i) => (i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message))
    .join("; ");
  throw new ConfigurationError(`${toolName} args: ${issues}.`);
}

/** Fails with a clear message for ADK fields agentkit does not implement (instead of ignoring them). */
export function rejectUnsupported(
  toolName: string,
  args: Record<string, unknown>,
  unsupported: Readonly<Record<string, string>>,
): void {
  for (const [field, hint] of Object.entries(unsupported)) {
    if (args[field] !== undefined)
      throw new ConfigurationError(`${toolName} args: ${field}: not supported by agentkit; ${hint}.`);
  }
}

/** The value of an environment variable a config names (`*_env` fields), or a `ConfigurationError` naming the field. */
export function envValue(toolName: string, field: string, variable: string): string {
  const value = process.env[variable];
  if (value === undefined || value === "")
    throw new ConfigurationError(`${toolName} args: ${field}: environment variable ${variable} is not set.`);
  return value;
}

/** A config path, resolved against `baseDir` (default: the process's working directory). */
export function configPath(path: string, baseDir: string | undefined): string {
  return isAbsolute(path) ? path : resolve(baseDir ?? process.cwd(), path);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
