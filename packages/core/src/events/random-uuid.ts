import { randomFillSync } from "node:crypto";

/**
 * UUIDs made from one fill of the random pool (Node's `randomUUID` buffers 128). A fill costs
 * about 5 µs whatever its size up to 16 KB, so 1,024 per fill make the fill's share of an id
 * about 6 ns instead of 40.
 */
const PER_FILL = 1024;
/** The ASCII codes of the lowercase hex digits. */
const HEX_CODES = Uint8Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
let pool: Buffer | undefined;
let used = PER_FILL;
let scratch: Buffer | undefined;

/**
 * `prefix` + a random (version 4) UUID, formatted as `crypto.randomUUID()` formats it (lowercase
 * hex, 8-4-4-4-12) from the same cryptographic source. Why not `randomUUID()` itself: it builds
 * the string by concatenation, a tree of a dozen pieces that every id-keyed lookup and every
 * stored snapshot has to flatten, and a prefix adds one more piece; this writes the characters
 * into a buffer and makes one flat string of them. `prefix` is a constant of the code base
 * (ASCII), never data.
 */
export function randomUuid(prefix = ""): string {
  if (used === PER_FILL) {
    pool ??= Buffer.alloc(16 * PER_FILL);
    randomFillSync(pool);
    used = 0;
  }
  const n = prefix.length;
  if (!scratch || scratch.length < n + 36) scratch = Buffer.alloc(n + 36);
  const out = scratch;
  const random = pool!;
  const start = used++ * 16;
  for (let i = 0; i < n; i++) out[i] = prefix.charCodeAt(i);
  let o = n;
  for (let i = 0; i < 16; i++) {
    let byte = random[start + i]!;
    if (i === 6)
      byte = (byte & 0x0f) | 0x40; // version 4
    else if (i === 8) byte = (byte & 0x3f) | 0x80; // RFC 4122 variant
    if (i === 4 || i === 6 || i === 8 || i === 10) out[o++] = 0x2d; // "-"
    out[o++] = HEX_CODES[byte >> 4]!;
    out[o++] = HEX_CODES[byte & 0x0f]!;
  }
  return out.toString("latin1", 0, o);
}
