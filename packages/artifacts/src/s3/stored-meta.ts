import type { Part } from "@agentkit/core";
import { ArtifactStoreError, ArtifactStoreErrorCode } from "../errors/artifact-errors.js";
import { isPayloadKind, type PayloadKind } from "../internal/part-codec.js";

/** What each S3 object carries besides its payload bytes. */
export interface StoredMeta {
  schema: 1;
  kind: PayloadKind;
  part: Part;
  createTime: number;
  mimeType?: string;
  customMetadata?: Record<string, unknown>;
}

/** User-metadata header with the base64url JSON of `StoredMeta`, when it fits. */
export const META_HEADER = "agentkit-meta";
/** Set instead when the JSON was too large for a header: the body starts with that many bytes of it. */
export const META_BYTES_HEADER = "agentkit-meta-bytes";
// S3 allows 2 KiB of user metadata in total (names and values); keep well below.
const MAX_HEADER_VALUE = 1800;

/** Metadata headers and the bytes (if any) to put in front of the payload. */
export function encodeMeta(meta: StoredMeta): { headers: Record<string, string>; bodyPrefix: Buffer } {
  const json = Buffer.from(JSON.stringify(meta), "utf8");
  const value = json.toString("base64url");
  if (value.length <= MAX_HEADER_VALUE) return { headers: { [META_HEADER]: value }, bodyPrefix: Buffer.alloc(0) };
  return { headers: { [META_BYTES_HEADER]: String(json.length) }, bodyPrefix: json };
}

/** How many leading body bytes hold metadata (0 when it is in the header). */
export function metaBytesOf(headers: Record<string, string> | undefined, key: string): number {
  const raw = headers?.[META_BYTES_HEADER];
  if (raw === undefined) return 0;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n <= 0) throw corrupt(key, `bad ${META_BYTES_HEADER} header`);
  return n;
}

/** Parses the metadata from its header, or from the first bytes of the body. */
export function decodeMeta(
  headers: Record<string, string> | undefined,
  key: string,
  bodyPrefix?: Uint8Array,
): StoredMeta {
  let text: string;
  const header = headers?.[META_HEADER];
  if (header !== undefined) text = Buffer.from(header, "base64url").toString("utf8");
  else if (bodyPrefix !== undefined) text = Buffer.from(bodyPrefix).toString("utf8");
  else throw corrupt(key, "no agentkit metadata (not written by S3ArtifactService?)");
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (cause) {
    throw corrupt(key, "metadata is not valid JSON", cause);
  }
  const m = meta as Partial<StoredMeta> | null;
  if (
    m === null ||
    typeof m !== "object" ||
    m.schema !== 1 ||
    !isPayloadKind(m.kind) ||
    typeof m.part !== "object" ||
    typeof m.createTime !== "number"
  ) {
    throw corrupt(key, "metadata has an unknown shape");
  }
  return m as StoredMeta;
}

function corrupt(key: string, what: string, cause?: unknown): ArtifactStoreError {
  return new ArtifactStoreError(ArtifactStoreErrorCode.CORRUPT, `S3 object ${key}: ${what}.`, { backend: "s3", cause });
}
