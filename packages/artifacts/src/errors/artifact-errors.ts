import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

// Name and scope errors are core's (every backend validates through core's
// validateArtifactRequest); re-exported here with the store's own errors.
export { InvalidArtifactNameError, InvalidArtifactScopeError } from "@agentkit/core";

/** A malformed `file://` or `s3://` service URI. `code` is `INVALID_ARTIFACT_URI`. */
export class InvalidArtifactUriError extends AgentKitError {
  readonly uri: string;

  constructor(uri: string, message: string, options: AgentKitErrorOptions = {}) {
    super("INVALID_ARTIFACT_URI", message, options);
    this.uri = uri;
  }
}

/** Why a storage operation failed, independent of the backend. */
export const ArtifactStoreErrorCode = {
  /** The store could not be reached (connection refused, DNS, timeouts). */
  UNAVAILABLE: "ARTIFACT_STORE_UNAVAILABLE",
  /** Credentials missing or rejected, or the caller lacks permission. */
  ACCESS_DENIED: "ARTIFACT_STORE_ACCESS_DENIED",
  /** The bucket or root directory does not exist. */
  NOT_FOUND: "ARTIFACT_STORE_NOT_FOUND",
  /** The caller's AbortSignal fired. */
  ABORTED: "ARTIFACT_STORE_ABORTED",
  /** A stored version cannot be read back (damaged metadata, missing data). */
  CORRUPT: "ARTIFACT_STORE_CORRUPT",
  /** Too many writers raced for the next version number. */
  CONFLICT: "ARTIFACT_STORE_CONFLICT",
  /** A value too large for the store (a file or object over its size limit, metadata too large). */
  LIMIT: "ARTIFACT_STORE_LIMIT",
  /** The store has no room left (disk full, quota exceeded). */
  FULL: "ARTIFACT_STORE_FULL",
  /** Anything else the store reported. */
  FAILED: "ARTIFACT_STORE_FAILED",
} as const;
export type ArtifactStoreErrorCode = (typeof ArtifactStoreErrorCode)[keyof typeof ArtifactStoreErrorCode];

/** A failed read or write of a persistent artifact store. `code` is an `ArtifactStoreErrorCode`. */
export class ArtifactStoreError extends AgentKitError {
  /** `file` or `s3`. */
  readonly backend: string;
  /** HTTP status for S3 errors, when there was a response. */
  readonly status?: number;

  constructor(
    code: ArtifactStoreErrorCode,
    message: string,
    options: AgentKitErrorOptions & { backend: string; status?: number },
  ) {
    super(code, message, options);
    this.backend = options.backend;
    if (options.status !== undefined) this.status = options.status;
  }
}
