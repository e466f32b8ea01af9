import { AgentKitError, InvalidArtifactNameError } from "@agentkit/core";
import { ArtifactStoreError, ArtifactStoreErrorCode } from "../errors/artifact-errors.js";

interface S3LikeError {
  name?: string;
  code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

const BY_NAME: Record<string, ArtifactStoreErrorCode> = {
  NoSuchBucket: ArtifactStoreErrorCode.NOT_FOUND,
  AccessDenied: ArtifactStoreErrorCode.ACCESS_DENIED,
  InvalidAccessKeyId: ArtifactStoreErrorCode.ACCESS_DENIED,
  SignatureDoesNotMatch: ArtifactStoreErrorCode.ACCESS_DENIED,
  ExpiredToken: ArtifactStoreErrorCode.ACCESS_DENIED,
  CredentialsProviderError: ArtifactStoreErrorCode.ACCESS_DENIED,
  EntityTooLarge: ArtifactStoreErrorCode.LIMIT,
  MetadataTooLarge: ArtifactStoreErrorCode.LIMIT,
  SlowDown: ArtifactStoreErrorCode.UNAVAILABLE,
  ServiceUnavailable: ArtifactStoreErrorCode.UNAVAILABLE,
  TimeoutError: ArtifactStoreErrorCode.UNAVAILABLE,
  RequestTimeout: ArtifactStoreErrorCode.UNAVAILABLE,
};

const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

const NETWORK_PATTERN = new RegExp(`\\b(?:${[...NETWORK_CODES].join("|")})\\b`);

/** A connection-level failure: no HTTP answer at all. */
function isNetworkError(e: S3LikeError): boolean {
  // The SDK sometimes wraps the socket error ("AWS SDK error wrapper
  // for Error: connect ECONNREFUSED …"), keeping only its message.
  return NETWORK_CODES.has(e.code ?? "") || NETWORK_CODES.has(e.name ?? "") || NETWORK_PATTERN.test(e.message ?? "");
}

/** The HTTP status of an AWS SDK error, when the server answered. */
export function s3StatusOf(error: unknown): number | undefined {
  return (error as S3LikeError | undefined)?.$metadata?.httpStatusCode;
}

/** True for the "no such key" answers of GetObject / HeadObject. */
export function isS3NotFound(error: unknown): boolean {
  const name = (error as S3LikeError | undefined)?.name;
  return name === "NoSuchKey" || name === "NotFound" || (s3StatusOf(error) === 404 && name !== "NoSuchBucket");
}

/** True when a conditional write lost (`If-None-Match: *` and the key exists). */
export function isS3PreconditionFailed(error: unknown): boolean {
  const status = s3StatusOf(error);
  const name = (error as S3LikeError | undefined)?.name;
  return status === 412 || name === "PreconditionFailed" || name === "ConditionalRequestConflict";
}

/** AWS SDK errors as `ArtifactStoreError`s with a stable `code`; agentkit errors pass through. */
export function mapS3Error(error: unknown, action: string, bucket: string, signal?: AbortSignal): AgentKitError {
  if (error instanceof AgentKitError) return error;
  const e = (error ?? {}) as S3LikeError;
  const status = s3StatusOf(error);
  const detail = e.message || e.name || String(error);
  const options = { backend: "s3", cause: error, ...(status === undefined ? {} : { status }) };
  if (signal?.aborted || e.name === "AbortError") {
    return new ArtifactStoreError(ArtifactStoreErrorCode.ABORTED, `S3 artifact ${action} was aborted.`, options);
  }
  // The key is built from the caller's names (keyOf checks it first; a stricter server may still refuse).
  if (e.name === "KeyTooLongError") {
    return new InvalidArtifactNameError(
      `S3 artifact ${action} failed: the key is longer than the server allows; use shorter names.`,
      {
        cause: error,
      },
    );
  }
  let code = BY_NAME[e.name ?? ""];
  if (code === undefined) {
    if (status === 401 || status === 403) code = ArtifactStoreErrorCode.ACCESS_DENIED;
    else if (status === 503 || status === 504) code = ArtifactStoreErrorCode.UNAVAILABLE;
    else if (status === undefined && isNetworkError(e)) code = ArtifactStoreErrorCode.UNAVAILABLE;
    else code = ArtifactStoreErrorCode.FAILED;
  }
  const hint =
    code === ArtifactStoreErrorCode.NOT_FOUND
      ? ` Create bucket "${bucket}" or fix the bucket name.`
      : code === ArtifactStoreErrorCode.ACCESS_DENIED
        ? " Check AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or the client's credentials) and the bucket policy."
        : code === ArtifactStoreErrorCode.UNAVAILABLE
          ? " Check the endpoint (AWS_ENDPOINT_URL_S3) and that the server is running."
          : "";
  return new ArtifactStoreError(code, `S3 artifact ${action} in bucket "${bucket}" failed: ${detail}.${hint}`, options);
}
