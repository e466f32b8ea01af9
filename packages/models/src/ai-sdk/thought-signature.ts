/**
 * Reasoning parts of AI SDK providers carry what the provider needs back on the next turn
 * (Anthropic's thinking `signature` or `redactedData`, OpenAI's reasoning `itemId` and
 * encrypted content) in `providerMetadata`. agentkit keeps it in the part's opaque
 * `thoughtSignature` as `aisdk1:` + base64(JSON) and hands it back as `providerOptions`.
 */
const PREFIX = "aisdk1:";

export function encodeThoughtSignature(metadata: Record<string, unknown> | undefined): string | undefined {
  if (metadata === undefined || Object.keys(metadata).length === 0) return undefined;
  return PREFIX + Buffer.from(JSON.stringify(metadata), "utf8").toString("base64");
}

/** The provider options of a signature this adapter wrote; undefined for any other signature. */
export function decodeThoughtSignature(
  signature: string | undefined,
): Record<string, Record<string, never>> | undefined {
  if (signature === undefined || !signature.startsWith(PREFIX)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(signature.slice(PREFIX.length), "base64").toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, Record<string, never>>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Merges provider metadata of the parts of one streamed reasoning block (by provider key). */
export function mergeMetadata(
  into: Record<string, Record<string, unknown>> | undefined,
  from: Record<string, Record<string, unknown>> | undefined,
): Record<string, Record<string, unknown>> | undefined {
  if (from === undefined) return into;
  const out: Record<string, Record<string, unknown>> = { ...into };
  for (const [provider, values] of Object.entries(from)) out[provider] = { ...out[provider], ...values };
  return out;
}
