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
  const rest = structuredClone(part);
  if (rest.inlineData !== undefined && typeof rest.inlineData.data === "string") {
    const payload = Buffer.from(rest.inlineData.data, "base64");
    delete rest.inlineData.data;
    return { kind: "inline", payload, rest };
  }
  if (typeof rest.text === "string") {
    const payload = Buffer.from(rest.text, "utf8");
    delete rest.text;
    return { kind: "text", payload, rest };
  }
  return { kind: "none", payload: Buffer.alloc(0), rest };
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
