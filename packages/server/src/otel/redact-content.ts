import { maskSchemeCredentials, setOwn } from "@agentkit/core/internal";

/** Where a text being exported comes from: a span attribute (by key) or a log record. */
export interface RedactionSite {
  signal: "traces" | "logs";
  /** The span attribute's key (`gcp.vertex.agent.tool_call_args`, …) or the log attribute's. */
  attribute?: string;
}

/** Rewrites a text before it is exported (masks what must not leave the process). Must not throw. */
export type Redactor = (text: string, site: RedactionSite) => string;

export const REDACTED = "[REDACTED]";

/** Keys whose values are credentials wherever they appear in exported JSON (tool arguments, requests, responses). */
const CREDENTIAL_KEY =
  /(pass(word|wd|phrase)?|secret|token|api[-_]?key|apikey|authorization|credential|private[-_]?key|cookie)s?$/i;

/**
 * The redaction every exported text gets, before any user hook: in JSON, the values of
 * credential-like keys (`api_key`, `password`, `token`, `authorization`, …) at any depth become
 * "[REDACTED]"; in every string, `Bearer …` / `Basic …` credentials do. A truncated JSON
 * attribute (`{truncated, length, head}`) has its head masked by the same key rule as text.
 */
export function redactCredentials(text: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return redactText(text);
  }
  if (parsed === null || typeof parsed !== "object") return typeof parsed === "string" ? redactText(text) : text;
  return JSON.stringify(redactValue(parsed));
}

function redactValue(value: unknown): unknown {
  if (typeof value === "string") return redactText(value);
  if (Array.isArray(value)) return value.map(redactValue);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    // Keys are data (a tool's arguments): a `__proto__` key stays a key (and is redacted as one).
    setOwn(out, key, CREDENTIAL_KEY.test(key) && typeof inner === "string" ? REDACTED : redactValue(inner));
  }
  return out;
}

/** `"api_key": "…"` and `api_key=…` inside free text (a truncated JSON head, a message), and bearer credentials. */
function redactText(text: string): string {
  return maskSchemeCredentials(text, REDACTED).replace(
    /(\b(?:pass(?:word|wd|phrase)?|secret|token|api[-_]?key|apikey|authorization|credential|private[-_]?key|cookie)\\?["']?\s*[:=]\s*\\?["']?)([^"'\\\s,;}&]+)/gi,
    (_m, prefix: string) => `${prefix}${REDACTED}`,
  );
}
