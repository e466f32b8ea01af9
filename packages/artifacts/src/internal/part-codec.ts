import type { Part } from "@agentkit/core";

/** Which field of the part the stored payload bytes came from. */
export type PayloadKind = "inline" | "text" | "none";

/**
 * A part split for storage: the bytes (decoded `inlineData.data`, or UTF-8 `text`) go to the
 * object or data file as they are, so large artifacts are neither base64-inflated nor parsed;
 * `rest` is the part without them (mimeType, displayName, fileData, …), stored as JSON.
 */
export interface SplitPart {
  kind: PayloadKind;
  payload: Buffer;
  rest: Part;
}

export function splitPart(part: Part): SplitPart {
  // The payload string is decoded straight from the caller's part and never cloned: a large
  // upload is then held as that string plus its bytes, not twice as a string.
  if (part.inlineData !== undefined && typeof part.inlineData.data === "string") {
    const { data, ...inlineData } = part.inlineData;
    const rest = structuredClone({ ...part, inlineData });
    return { kind: "inline", payload: Buffer.from(data, "base64"), rest };
  }
  if (typeof part.text === "string") {
    const { text, ...others } = part;
    return { kind: "text", payload: Buffer.from(text, "utf8"), rest: structuredClone(others) };
  }
  return { kind: "none", payload: Buffer.alloc(0), rest: structuredClone(part) };
}

/** The inverse of `splitPart` (base64 comes back in the standard alphabet). */
export function joinPart(kind: PayloadKind, rest: Part, payload: Uint8Array): Part {
  const part = structuredClone(rest);
  const bytes = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
  if (kind === "inline") part.inlineData = { ...part.inlineData, data: bytes.toString("base64") };
  else if (kind === "text") part.text = bytes.toString("utf8");
  return part;
}

export function isPayloadKind(value: unknown): value is PayloadKind {
  return value === "inline" || value === "text" || value === "none";
}
