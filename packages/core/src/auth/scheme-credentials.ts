/** A `Bearer …` or `Basic …` credential in free text (an Authorization header pasted into a message, a log line). */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g;

/**
 * `text` with each `Bearer`/`Basic` credential replaced by `<scheme> <mask>`: the one rule the
 * server's log scrubber and its telemetry redaction share.
 */
export function maskSchemeCredentials(text: string, mask: string): string {
  return text.replace(SCHEME_CREDENTIAL, (_m, scheme: string) => `${scheme} ${mask}`);
}
