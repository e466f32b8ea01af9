import { AgentKitError } from "@agentkit/core";
import { ArtifactStoreError, ArtifactStoreErrorCode } from "../errors/artifact-errors.js";

const CODES: Record<string, ArtifactStoreErrorCode> = {
  EACCES: ArtifactStoreErrorCode.ACCESS_DENIED,
  EPERM: ArtifactStoreErrorCode.ACCESS_DENIED,
  EROFS: ArtifactStoreErrorCode.ACCESS_DENIED,
  ENAMETOOLONG: ArtifactStoreErrorCode.LIMIT,
  ENOSPC: ArtifactStoreErrorCode.LIMIT,
  EDQUOT: ArtifactStoreErrorCode.LIMIT,
  EFBIG: ArtifactStoreErrorCode.LIMIT,
};

/** Node's fs errors as `ArtifactStoreError`s; agentkit errors pass through. */
export function mapFsError(error: unknown, action: string, signal?: AbortSignal): AgentKitError {
  if (error instanceof AgentKitError) return error;
  // The reason may be any value (abort(reason)) or a DOMException from another realm.
  if (signal?.aborted || (error as { name?: unknown } | undefined)?.name === "AbortError") {
    return new ArtifactStoreError(ArtifactStoreErrorCode.ABORTED, `Artifact ${action} was aborted.`, {
      backend: "file",
      cause: error,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  return new ArtifactStoreError(
    CODES[code ?? ""] ?? ArtifactStoreErrorCode.FAILED,
    `Artifact ${action} failed: ${message}`,
    {
      backend: "file",
      cause: error,
    },
  );
}

export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
