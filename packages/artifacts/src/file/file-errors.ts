import { relative, sep } from "node:path";
import { AgentKitError, InvalidArtifactNameError } from "@agentkit/core";
import { ArtifactStoreError, ArtifactStoreErrorCode } from "../errors/artifact-errors.js";

const CODES: Record<string, ArtifactStoreErrorCode> = {
  EACCES: ArtifactStoreErrorCode.ACCESS_DENIED,
  EPERM: ArtifactStoreErrorCode.ACCESS_DENIED,
  EROFS: ArtifactStoreErrorCode.ACCESS_DENIED,
  ENOSPC: ArtifactStoreErrorCode.FULL,
  EDQUOT: ArtifactStoreErrorCode.FULL,
  EFBIG: ArtifactStoreErrorCode.LIMIT,
};

/**
 * Node's fs errors as `ArtifactStoreError`s; agentkit errors pass through. A path too long for
 * the file system (`ENAMETOOLONG`) is the caller's name: `InvalidArtifactNameError`. Paths in
 * messages are made relative to `rootDir`, so no absolute path travels further.
 */
export function mapFsError(error: unknown, action: string, signal?: AbortSignal, rootDir?: string): AgentKitError {
  if (error instanceof AgentKitError) return error;
  // The reason may be any value (abort(reason)) or a DOMException from another realm.
  if (signal?.aborted || (error as { name?: unknown } | undefined)?.name === "AbortError") {
    return new ArtifactStoreError(ArtifactStoreErrorCode.ABORTED, `Artifact ${action} was aborted.`, {
      backend: "file",
      cause: error,
    });
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === "ENAMETOOLONG") {
    return new InvalidArtifactNameError(
      `Artifact ${action} failed: the names make a path longer than the file system allows; use shorter names.`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ArtifactStoreError(
    CODES[code ?? ""] ?? ArtifactStoreErrorCode.FAILED,
    `Artifact ${action} failed: ${rootDir === undefined ? message : relativePaths(message, rootDir)}`,
    { backend: "file", cause: error },
  );
}

/** `'/root/dir/a/b'` in an fs message → `'<rootDir>/a/b'`. */
export function relativePaths(message: string, rootDir: string): string {
  return message.replace(/'([^']+)'/g, (quoted, path: string) => {
    if (path !== rootDir && !path.startsWith(rootDir + sep)) return quoted;
    const rel = relative(rootDir, path);
    return `'<rootDir>${rel ? `/${rel.split(sep).join("/")}` : ""}'`;
  });
}

export function errnoOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}
