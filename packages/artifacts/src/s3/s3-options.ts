import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";

export interface S3ArtifactServiceOptions {
  /** Bucket name (it must exist; `verify()` checks). */
  bucket: string;
  /** Key prefix every artifact lives under (leading/trailing slashes ignored). */
  prefix?: string;
  /** A client you own: the service never destroys it. */
  client?: S3Client;
  /**
   * Config for a client the service creates (endpoint, region, credentials, forcePathStyle) and destroys on close().
   */
  clientConfig?: S3ClientConfig;
  /** Payloads of at least this many bytes go up as a multipart upload. Default 8 MiB. */
  multipartThreshold?: number;
  /** Part size of multipart uploads (S3 requires at least 5 MiB). Default 8 MiB. */
  partSize?: number;
  /** Parts uploaded in parallel. Default 4. */
  queueSize?: number;
  /**
   * For a client the service creates: milliseconds a TCP connection to S3 may take to open before
   * the request fails. Default 5000; 0 turns the bound off. Not allowed with `client` or a request handler instance.
   */
  connectTimeoutMs?: number;
  /**
   * For a client the service creates: milliseconds a request's socket may stay silent (nothing
   * sent or received, through the whole response body) before the request fails. It bounds a
   * stall, not a transfer: an upload or download of any size that keeps moving is never cut.
   * Default 30000; 0 turns the bound off. Not allowed with `client` or a request handler instance.
   */
  idleTimeoutMs?: number;
}

export interface S3ArtifactServiceUriOptions {
  /**
   * Where to read AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL / AWS_REGION / AWS_DEFAULT_REGION and the
   * checksum settings from. Default `process.env`. Credentials always come from the AWS SDK's own
   * provider chain (environment, profiles, instance roles) or `clientConfig.credentials`.
   */
  env?: Record<string, string | undefined>;
  /** Merged over what the URI and environment give. */
  clientConfig?: S3ClientConfig;
  /** As in `S3ArtifactServiceOptions`. Default 5000. */
  connectTimeoutMs?: number;
  /** As in `S3ArtifactServiceOptions`. Default 30000. */
  idleTimeoutMs?: number;
}
