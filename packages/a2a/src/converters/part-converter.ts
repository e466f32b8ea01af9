import type { Part as A2aPart } from "@a2a-js/sdk";
import type { Part } from "@agentkit/core";
import { A2A_DATA_PART_TYPE_KEY, A2ADataPartMetadataType, A2AMetadataKey, AdkMetadataKey } from "./metadata.js";

type Metadata = Record<string, unknown>;

/** Options of `partToA2a`. */
export interface PartToA2aOptions {
  /** Function-call ids that run long: their data parts get `adk_is_long_running: true`. */
  longRunningToolIds?: readonly string[];
}

function a2aPart(content: A2aPart["content"], mediaType: string, metadata?: Metadata, filename = ""): A2aPart {
  return {
    content,
    metadata: metadata && Object.keys(metadata).length > 0 ? metadata : undefined,
    filename,
    mediaType,
  };
}

function dataPart(type: A2ADataPartMetadataType, value: unknown, extra: Metadata = {}): A2aPart {
  return a2aPart({ $case: "data", value: stripUndefined(value) }, "application/json", {
    [A2A_DATA_PART_TYPE_KEY]: type,
    ...extra,
  });
}

/** JSON-safe copy without undefined fields (the protobuf `Value` encoding rejects them). */
function stripUndefined(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}

/**
 * One agentkit part as an A2A part, or undefined for parts A2A cannot carry (video metadata
 * alone, an empty part). Text → text part; inline data → raw file part; file data → url file
 * part; calls, responses and code → data parts typed under `adk_type`.
 */
export function partToA2a(part: Part, options: PartToA2aOptions = {}): A2aPart | undefined {
  const extra: Metadata = {};
  if (part.thoughtSignature) extra[AdkMetadataKey.THOUGHT_SIGNATURE] = part.thoughtSignature;
  if (typeof part.text === "string") {
    if (part.thought) extra[AdkMetadataKey.THOUGHT] = true;
    return a2aPart({ $case: "text", value: part.text }, "text/plain", extra);
  }
  if (part.inlineData) {
    const bytes = Buffer.from(part.inlineData.data ?? "", "base64");
    return a2aPart(
      { $case: "raw", value: bytes },
      part.inlineData.mimeType ?? "application/octet-stream",
      extra,
      part.inlineData.displayName ?? "",
    );
  }
  if (part.fileData) {
    return a2aPart(
      { $case: "url", value: part.fileData.fileUri ?? "" },
      part.fileData.mimeType ?? "",
      extra,
      part.fileData.displayName ?? "",
    );
  }
  if (part.functionCall) {
    const id = part.functionCall.id;
    if (id !== undefined && options.longRunningToolIds?.includes(id)) extra[A2AMetadataKey.IS_LONG_RUNNING] = true;
    return dataPart(A2ADataPartMetadataType.FUNCTION_CALL, part.functionCall, extra);
  }
  if (part.functionResponse) return dataPart(A2ADataPartMetadataType.FUNCTION_RESPONSE, part.functionResponse, extra);
  if (part.executableCode) return dataPart(A2ADataPartMetadataType.EXECUTABLE_CODE, part.executableCode, extra);
  if (part.codeExecutionResult)
    return dataPart(A2ADataPartMetadataType.CODE_EXECUTION_RESULT, part.codeExecutionResult, extra);
  return undefined;
}

function bytesToBase64(value: unknown): string {
  if (typeof value === "string") return value; // some JSON decoders leave bytes base64-encoded
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  return "";
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One A2A part as an agentkit part. Typed data parts become calls, responses or code; any
 * other data part becomes its JSON as text (as ADK does), so nothing the remote sent is lost.
 */
export function partFromA2a(part: A2aPart): Part | undefined {
  const metadata = asRecord(part.metadata);
  const extra: Part = {};
  const signature = metadata[AdkMetadataKey.THOUGHT_SIGNATURE];
  if (typeof signature === "string") extra.thoughtSignature = signature;
  const content = part.content;
  if (!content) return undefined;
  switch (content.$case) {
    case "text":
      return { text: content.value, ...(metadata[AdkMetadataKey.THOUGHT] === true ? { thought: true } : {}), ...extra };
    case "raw":
      return {
        inlineData: {
          data: bytesToBase64(content.value),
          mimeType: part.mediaType || "application/octet-stream",
          ...(part.filename ? { displayName: part.filename } : {}),
        },
        ...extra,
      };
    case "url":
      return {
        fileData: {
          fileUri: content.value,
          ...(part.mediaType ? { mimeType: part.mediaType } : {}),
          ...(part.filename ? { displayName: part.filename } : {}),
        },
        ...extra,
      };
    case "data": {
      const value = asRecord(content.value);
      switch (metadata[A2A_DATA_PART_TYPE_KEY]) {
        case A2ADataPartMetadataType.FUNCTION_CALL:
          return { functionCall: value, ...extra };
        case A2ADataPartMetadataType.FUNCTION_RESPONSE:
          return { functionResponse: value, ...extra };
        case A2ADataPartMetadataType.EXECUTABLE_CODE:
          return { executableCode: value, ...extra };
        case A2ADataPartMetadataType.CODE_EXECUTION_RESULT:
          return { codeExecutionResult: value, ...extra };
        default:
          return { text: JSON.stringify(content.value ?? null) };
      }
    }
    default:
      return undefined;
  }
}

/** Ids of the function calls that the A2A parts mark as long-running. */
export function longRunningIdsOf(parts: readonly A2aPart[]): string[] {
  const ids: string[] = [];
  for (const part of parts) {
    const metadata = asRecord(part.metadata);
    if (part.content?.$case !== "data" || metadata[A2A_DATA_PART_TYPE_KEY] !== A2ADataPartMetadataType.FUNCTION_CALL)
      continue;
    const id = asRecord(part.content.value).id;
    if (metadata[A2AMetadataKey.IS_LONG_RUNNING] === true && typeof id === "string") ids.push(id);
  }
  return ids;
}
