/**
 * What telemetry records of an error: its `code` when that is a plain identifier, else its
 * class name; never the message, which may quote what a model, a tool or a user sent.
 */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return code;
  return error instanceof Error ? error.constructor.name : "unknown";
}
