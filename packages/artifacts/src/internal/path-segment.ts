// One reversible encoding for every name that becomes a directory name or an S3 key segment.
// Output is always a single, harmless segment: no "/", "\", NUL or control bytes, never "." or
// "..", never starting with "." (so it cannot collide with the backends' own ".tmp-" entries).

const PLAIN = /[A-Za-z0-9_\-.~ ]/;

/** Percent-encodes (UTF-8) every character outside `[A-Za-z0-9_-.~ ]`, and a leading ".". */
export function encodeSegment(name: string): string {
  let out = "";
  for (const char of name) {
    if (PLAIN.test(char) && !(out.length === 0 && char === ".")) out += char;
    else for (const byte of Buffer.from(char, "utf8")) out += `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}

/** The inverse of `encodeSegment`; `undefined` for a segment it could not have produced. */
export function decodeSegment(segment: string): string | undefined {
  if (segment.length === 0 || segment.startsWith(".")) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
