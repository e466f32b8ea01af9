import { maskSchemeCredentials } from "@agentkit/core/internal";

const REDACTED = "[REDACTED]";

/**
 * Masks known secret values (shorter than 6 characters: left alone, they would mask ordinary
 * words) and bearer credentials in a text. One policy for every way out of the process: log
 * lines and, with `--otel`, exported spans and log records.
 */
export function createSecretScrubber(values: readonly string[]): (text: string) => string {
  // Longest first, so a secret containing another is masked whole.
  const secrets = [...new Set(values)].filter((s) => s.length >= 6).sort((a, b) => b.length - a.length);
  return (text) => {
    let out = maskSchemeCredentials(text, REDACTED);
    for (const secret of secrets) out = out.replaceAll(secret, REDACTED);
    return out;
  };
}
