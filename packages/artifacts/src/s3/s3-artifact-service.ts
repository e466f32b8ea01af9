import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import {
  BaseArtifactService,
  ConfigurationError,
  InvalidArtifactNameError,
  nowSeconds,
  type ArtifactRequest,
  type ArtifactScope,
  type ArtifactVersion,
  type LoadArtifactRequest,
  type Part,
  type SaveArtifactRequest,
} from "@agentkit/core";
import { artifactMimeType, KeyedQueue, validateArtifactPart } from "@agentkit/core/internal";
import { ArtifactStoreError, ArtifactStoreErrorCode, InvalidArtifactUriError } from "../errors/artifact-errors.js";
import {
  USER_SCOPE_SEGMENT,
  locateArtifact,
  ownerSegments,
  parseVersion,
  sessionSegment,
} from "../internal/artifact-location.js";
import { joinPart, splitPart } from "../internal/part-codec.js";
import { decodeSegment } from "../internal/path-segment.js";
import type { ArtifactCallOptions } from "../internal/artifact-call-options.js";

import { normalizePrefix, parseS3Uri, validateBucketName } from "./parse-s3-uri.js";
import { isS3NotFound, isS3PreconditionFailed, mapS3Error } from "./s3-error-mapping.js";
import { withTimeouts } from "./s3-client-config.js";
import type { S3ArtifactServiceOptions, S3ArtifactServiceUriOptions } from "./s3-options.js";
import { decodeMeta, encodeMeta, metaBytesOf, type StoredMeta } from "./stored-meta.js";

const MIB = 1024 * 1024;
/** S3's longest object key, in bytes of UTF-8. */
const MAX_KEY_BYTES = 1024;
/** Room kept for `/<version>` after a filename's key (15 digits, as `parseVersion` allows). */
const VERSION_SUFFIX_BYTES = 16;
/** S3 deletes at most 1000 keys per DeleteObjects call. */
const DELETE_BATCH = 1000;
/** Give up after this many lost races for a version number. */
const MAX_CLAIM_ATTEMPTS = 1000;

/**
 * Artifacts in an S3 bucket (AWS or any S3-compatible server): one object per version at
 * `<prefix>/<app>/<user>/<session | user>/<filename>/<version>`, holding the raw payload bytes
 * with the part's MIME type as Content-Type and the rest of the part in user metadata. Names
 * are percent-encoded into single key segments, as in `FileArtifactService`. Versions are the
 * integers found in the keys; a new version is written with `If-None-Match: *`, so on AWS S3
 * two writers can never overwrite each other's version (the loser retries with the next
 * number), and saves of one filename are serialised within this process.
 */
export class S3ArtifactService extends BaseArtifactService {
  readonly bucket: string;
  readonly prefix: string;
  readonly client: S3Client;
  private readonly ownsClient: boolean;
  private readonly multipartThreshold: number;
  private readonly partSize: number;
  private readonly queueSize: number;
  private readonly saves = new KeyedQueue();
  private closed = false;

  constructor(options: S3ArtifactServiceOptions) {
    super();
    if (typeof options?.bucket !== "string")
      throw new ConfigurationError("S3ArtifactService needs a bucket name (options.bucket).");
    if (options.client !== undefined && options.clientConfig !== undefined) {
      throw new ConfigurationError(
        "S3ArtifactService takes either client or clientConfig, not both: configure the client you pass in.",
      );
    }
    try {
      validateBucketName(options.bucket);
      this.prefix = normalizePrefix(options.prefix);
    } catch (error) {
      throw error instanceof InvalidArtifactUriError ? new ConfigurationError(error.message, { cause: error }) : error;
    }
    this.bucket = options.bucket;
    this.ownsClient = options.client === undefined;
    const clientConfig = withTimeouts(options);
    this.client = options.client ?? new S3Client(clientConfig);
    this.partSize = Math.max(5 * MIB, options.partSize ?? 8 * MIB);
    this.multipartThreshold = Math.max(1, options.multipartThreshold ?? 8 * MIB);
    this.queueSize = Math.max(1, options.queueSize ?? 4);
  }

  /**
   * `s3://bucket/some/prefix`. Region and credentials come from the AWS SDK's usual sources
   * (AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_PROFILE, …); the endpoint from
   * AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL. A custom endpoint (MinIO, s3rver, Ceph…) also gets
   * path-style addressing, region us-east-1 when none is set, and checksums only where S3
   * requires them (many S3-compatible servers reject the SDK's default trailing checksums).
   */
  static fromUri(uri: string, options: S3ArtifactServiceUriOptions = {}): S3ArtifactService {
    const { bucket, prefix } = parseS3Uri(uri);
    const env = options.env ?? process.env;
    const config: S3ClientConfig = {};
    const endpoint = env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
    if (endpoint) {
      try {
        new URL(endpoint);
      } catch (cause) {
        throw new InvalidArtifactUriError(
          endpoint,
          `AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL ${JSON.stringify(endpoint)} is not a URL.`,
          { cause },
        );
      }
      config.endpoint = endpoint;
      config.forcePathStyle = true;
      config.region = env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1";
      if (!env.AWS_REQUEST_CHECKSUM_CALCULATION) config.requestChecksumCalculation = "WHEN_REQUIRED";
      if (!env.AWS_RESPONSE_CHECKSUM_VALIDATION) config.responseChecksumValidation = "WHEN_REQUIRED";
    } else if (env.AWS_REGION || env.AWS_DEFAULT_REGION) {
      config.region = env.AWS_REGION || env.AWS_DEFAULT_REGION;
    }
    return new S3ArtifactService({
      bucket,
      prefix,
      clientConfig: { ...config, ...options.clientConfig },
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
      ...(options.idleTimeoutMs === undefined ? {} : { idleTimeoutMs: options.idleTimeoutMs }),
    });
  }

  /** Checks that the bucket exists and the credentials may use it (call at start to fail early). */
  async verify(options: ArtifactCallOptions = {}): Promise<void> {
    this.assertOpen();
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }), { abortSignal: options.signal });
    } catch (error) {
      // HeadBucket has no body, so a missing bucket arrives as a bare 404.
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) {
        throw new ArtifactStoreError(
          ArtifactStoreErrorCode.NOT_FOUND,
          `S3 bucket "${this.bucket}" does not exist; create it or fix the bucket name.`,
          {
            backend: "s3",
            status: 404,
            cause: error,
          },
        );
      }
      throw mapS3Error(error, "bucket check", this.bucket, options.signal);
    }
  }

  override async saveArtifact(request: SaveArtifactRequest & ArtifactCallOptions): Promise<number> {
    const location = locateArtifact(request);
    validateArtifactPart(request.artifact);
    this.assertOpen();
    const { kind, payload, rest } = splitPart(request.artifact);
    const mimeType = artifactMimeType(request.artifact);
    const customMetadata = request.customMetadata === undefined ? undefined : structuredClone(request.customMetadata);
    const contentType = mimeType ?? (kind === "text" ? "text/plain; charset=utf-8" : "application/octet-stream");
    const fileKey = this.keyOf(...location.scope, location.file);
    const { signal } = request;
    return this.saves.run(fileKey, async () => {
      // Stamped once this save's turn comes, so createTime follows version order within a process.
      const meta: StoredMeta = { schema: 1, kind, part: rest, createTime: nowSeconds() };
      if (mimeType !== undefined) meta.mimeType = mimeType;
      if (customMetadata !== undefined) meta.customMetadata = customMetadata;
      const { headers, bodyPrefix } = encodeMeta(meta);
      const body = bodyPrefix.length === 0 ? payload : Buffer.concat([bodyPrefix, payload]);
      try {
        let next = nextVersion(await this.versionsUnder(fileKey, signal));
        for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
          try {
            await this.putObject(`${fileKey}/${next}`, body, contentType, headers, signal);
            return next;
          } catch (error) {
            if (!isS3PreconditionFailed(error)) throw error;
            // Another writer (another process or replica) took this number: move past it.
            next = Math.max(next + 1, nextVersion(await this.versionsUnder(fileKey, signal)));
          }
        }
        throw new ArtifactStoreError(
          ArtifactStoreErrorCode.CONFLICT,
          `Gave up after ${MAX_CLAIM_ATTEMPTS} concurrent saves won the next version of ${fileKey}.`,
          {
            backend: "s3",
          },
        );
      } catch (error) {
        throw mapS3Error(error, `save of ${JSON.stringify(request.filename)}`, this.bucket, signal);
      }
    });
  }

  override async loadArtifact(request: LoadArtifactRequest & ArtifactCallOptions): Promise<Part | undefined> {
    const location = locateArtifact(request);
    this.assertOpen();
    const fileKey = this.keyOf(...location.scope, location.file);
    const { signal } = request;
    try {
      let version = request.version;
      if (version === undefined) {
        const versions = await this.versionsUnder(fileKey, signal);
        version = versions[versions.length - 1];
        if (version === undefined) return undefined;
      } else if (!Number.isSafeInteger(version) || version < 0) {
        return undefined;
      }
      const key = `${fileKey}/${version}`;
      const response = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), {
        abortSignal: signal,
      });
      const bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array(0);
      const metaBytes = metaBytesOf(response.Metadata, key);
      const meta = decodeMeta(response.Metadata, key, metaBytes > 0 ? bytes.subarray(0, metaBytes) : undefined);
      return joinPart(meta.kind, meta.part, bytes.subarray(metaBytes));
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw mapS3Error(error, `load of ${JSON.stringify(request.filename)}`, this.bucket, signal);
    }
  }

  override async listArtifactKeys(request: ArtifactScope & ArtifactCallOptions): Promise<string[]> {
    const [app, user] = ownerSegments(request);
    this.assertOpen();
    const scopes: Array<[string, string]> = [[USER_SCOPE_SEGMENT, "user:"]];
    if (request.sessionId !== undefined && request.sessionId !== "")
      scopes.push([sessionSegment(request.sessionId), ""]);
    try {
      const names = new Set<string>();
      for (const [scope, namePrefix] of scopes) {
        const scopeKey = `${this.keyOf(app, user, scope)}/`;
        for await (const key of this.listKeys(scopeKey, request.signal)) {
          // <filename>/<version>, and nothing else, is ours.
          const rest = key.slice(scopeKey.length);
          const slash = rest.indexOf("/");
          if (slash <= 0 || parseVersion(rest.slice(slash + 1)) === undefined) continue;
          const name = decodeSegment(rest.slice(0, slash));
          if (name !== undefined) names.add(namePrefix + name);
        }
      }
      return [...names].sort();
    } catch (error) {
      throw mapS3Error(error, "listing", this.bucket, request.signal);
    }
  }

  override async listVersions(request: ArtifactRequest & ArtifactCallOptions): Promise<number[]> {
    const location = locateArtifact(request);
    this.assertOpen();
    try {
      return await this.versionsUnder(this.keyOf(...location.scope, location.file), request.signal);
    } catch (error) {
      throw mapS3Error(error, `version listing of ${JSON.stringify(request.filename)}`, this.bucket, request.signal);
    }
  }

  override async listArtifactVersions(request: ArtifactRequest & ArtifactCallOptions): Promise<ArtifactVersion[]> {
    const location = locateArtifact(request);
    this.assertOpen();
    const fileKey = this.keyOf(...location.scope, location.file);
    const { signal } = request;
    try {
      const versions = await this.versionsUnder(fileKey, signal);
      const infos = await Promise.all(versions.map((version) => this.versionInfo(fileKey, version, signal)));
      return infos.filter((info): info is ArtifactVersion => info !== undefined);
    } catch (error) {
      throw mapS3Error(error, `version listing of ${JSON.stringify(request.filename)}`, this.bucket, signal);
    }
  }

  override async getArtifactVersion(
    request: LoadArtifactRequest & ArtifactCallOptions,
  ): Promise<ArtifactVersion | undefined> {
    if (request.version === undefined) return super.getArtifactVersion(request);
    const location = locateArtifact(request);
    this.assertOpen();
    if (!Number.isSafeInteger(request.version) || request.version < 0) return undefined;
    try {
      return await this.versionInfo(this.keyOf(...location.scope, location.file), request.version, request.signal);
    } catch (error) {
      throw mapS3Error(error, `version lookup of ${JSON.stringify(request.filename)}`, this.bucket, request.signal);
    }
  }

  override async deleteArtifact(request: ArtifactRequest & ArtifactCallOptions): Promise<void> {
    const location = locateArtifact(request);
    this.assertOpen();
    const fileKey = this.keyOf(...location.scope, location.file);
    const { signal } = request;
    try {
      // Collected first, deleted after: deleting while paginating would shift the pages.
      const keys = (await this.versionsUnder(fileKey, signal)).map((version) => `${fileKey}/${version}`);
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        const response = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
          { abortSignal: signal },
        );
        const failed = (response.Errors ?? []).filter((e) => e.Code !== "NoSuchKey");
        if (failed.length > 0) {
          throw new ArtifactStoreError(
            ArtifactStoreErrorCode.FAILED,
            `S3 refused to delete ${failed.length} version(s) ` +
              `of ${JSON.stringify(request.filename)}: ${failed[0]?.Code ?? "?"} ${failed[0]?.Message ?? ""} ` +
              `(${failed[0]?.Key ?? "?"}).`,
            { backend: "s3" },
          );
        }
      }
    } catch (error) {
      throw mapS3Error(error, `delete of ${JSON.stringify(request.filename)}`, this.bucket, signal);
    }
  }

  /** Destroys the client if this service created it; a client passed in stays usable. */
  override async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) this.client.destroy();
  }

  private assertOpen(): void {
    if (this.closed) {
      throw new ArtifactStoreError(ArtifactStoreErrorCode.FAILED, "S3ArtifactService is closed; create a new one.", {
        backend: "s3",
      });
    }
  }

  /**
   * The key of encoded segments under the prefix. Refuses (`InvalidArtifactNameError`) one that
   * could not take a version and stay within S3's 1024-byte keys: percent-encoding can triple
   * a name, so names core accepts may still not fit together.
   */
  private keyOf(...segments: string[]): string {
    const key = (this.prefix === "" ? segments : [this.prefix, ...segments]).join("/");
    const bytes = Buffer.byteLength(key, "utf8") + VERSION_SUFFIX_BYTES;
    if (bytes > MAX_KEY_BYTES) {
      throw new InvalidArtifactNameError(
        `The artifact's S3 key would be ${bytes} bytes once its names are encoded; S3 allows ${MAX_KEY_BYTES}. Use ` +
          `shorter names or ids.`,
      );
    }
    return key;
  }

  /** Every key under a prefix, across ListObjectsV2 pages. */
  private async *listKeys(prefix: string, signal: AbortSignal | undefined): AsyncGenerator<string> {
    let token: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: prefix,
          ...(token === undefined ? {} : { ContinuationToken: token }),
        }),
        { abortSignal: signal },
      );
      for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
  }

  /** Version numbers stored under `<fileKey>/`, ascending. */
  private async versionsUnder(fileKey: string, signal: AbortSignal | undefined): Promise<number[]> {
    const versions: number[] = [];
    const prefix = `${fileKey}/`;
    for await (const key of this.listKeys(prefix, signal)) {
      const version = parseVersion(key.slice(prefix.length));
      if (version !== undefined) versions.push(version);
    }
    return versions.sort((a, b) => a - b);
  }

  private async versionInfo(
    fileKey: string,
    version: number,
    signal: AbortSignal | undefined,
  ): Promise<ArtifactVersion | undefined> {
    const key = `${fileKey}/${version}`;
    let metadata: Record<string, string> | undefined;
    try {
      metadata = (
        await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal })
      ).Metadata;
    } catch (error) {
      if (isS3NotFound(error)) return undefined;
      throw error;
    }
    const metaBytes = metaBytesOf(metadata, key);
    let prefixBytes: Uint8Array | undefined;
    if (metaBytes > 0) {
      const ranged = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=0-${metaBytes - 1}` }),
        {
          abortSignal: signal,
        },
      );
      prefixBytes = ((await ranged.Body?.transformToByteArray()) ?? new Uint8Array(0)).subarray(0, metaBytes);
    }
    const meta = decodeMeta(metadata, key, prefixBytes);
    const info: ArtifactVersion = { version, canonicalUri: `s3://${this.bucket}/${key}`, createTime: meta.createTime };
    if (meta.mimeType !== undefined) info.mimeType = meta.mimeType;
    if (meta.customMetadata !== undefined) info.customMetadata = meta.customMetadata;
    return info;
  }

  /** PutObject below the threshold, a lib-storage multipart Upload above it; never overwrites. */
  private async putObject(
    key: string,
    body: Buffer,
    contentType: string,
    metadata: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const params = {
      Bucket: this.bucket,
      Key: key,
      Body: body,
      ContentType: contentType,
      Metadata: metadata,
      IfNoneMatch: "*",
    };
    if (body.length < this.multipartThreshold) {
      await this.client.send(new PutObjectCommand({ ...params, ContentLength: body.length }), { abortSignal: signal });
      return;
    }
    signal?.throwIfAborted();
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const upload = new Upload({
        client: this.client,
        params,
        partSize: this.partSize,
        queueSize: this.queueSize,
        abortController: controller,
      });
      await upload.done();
    } finally {
      signal?.removeEventListener("abort", onAbort);
    }
  }
}

function nextVersion(versions: number[]): number {
  return versions.length === 0 ? 0 : versions[versions.length - 1]! + 1;
}
