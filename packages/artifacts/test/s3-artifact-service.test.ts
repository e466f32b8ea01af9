import { randomBytes } from "node:crypto";
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { ConfigurationError } from "@agentkit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { ArtifactStoreError, InvalidArtifactNameError, InvalidArtifactUriError } from "../src/index.js";
import { S3ArtifactService } from "../src/s3/index.js";
import { runArtifactServiceContract } from "../src/testing/index.js";
import { recordCommands } from "./support/command-recorder.js";
import { startConditionalWriteProxy } from "./support/conditional-write-proxy.js";
import { startS3rver, type TestS3Server } from "./support/s3rver-server.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

const BUCKET = "agentkit-artifacts";
let s3: TestS3Server;

beforeAll(async () => {
  s3 = await startS3rver();
  await s3.createBucket(BUCKET);
});
afterAll(async () => {
  await s3?.close();
});

runArtifactServiceContract(
  "S3ArtifactService",
  async () => {
    const service = new S3ArtifactService({ bucket: BUCKET, prefix: "contract", clientConfig: s3.clientConfig });
    return { service };
  },
  testApi,
);

describe("S3ArtifactService", () => {
  let client: S3Client;
  let service: S3ArtifactService;
  let prefix: string;
  const scope = { appName: "app", userId: "u1", sessionId: "s1" };

  /** Every key under the test's prefix. */
  async function keys(): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${prefix}/`, ContinuationToken: token }),
      );
      out.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.NextContinuationToken;
    } while (token);
    return out.sort();
  }

  beforeEach(() => {
    prefix = `t-${randomBytes(4).toString("hex")}`;
    client = new S3Client(s3.clientConfig);
    service = new S3ArtifactService({ bucket: BUCKET, prefix: `/${prefix}/`, client });
  });
  afterEach(async () => {
    await service.close();
    client.destroy();
  });

  it("stores one object per version at <prefix>/<app>/<user>/<session|user>/<filename>/<version>, raw bytes and Content-Type", async () => {
    const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
    await service.saveArtifact({
      ...scope,
      filename: "img.png",
      artifact: { inlineData: { mimeType: "image/png", data: bytes.toString("base64") } },
    });
    await service.saveArtifact({
      ...scope,
      filename: "img.png",
      artifact: { inlineData: { mimeType: "image/png", data: "AA==" } },
    });
    await service.saveArtifact({ ...scope, filename: "user:notes/today.md", artifact: { text: "# hi" } });
    expect(await keys()).toEqual([
      `${prefix}/app/u1/s1/img.png/0`,
      `${prefix}/app/u1/s1/img.png/1`,
      `${prefix}/app/u1/user/notes%2Ftoday.md/0`,
    ]);
    const object = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/app/u1/s1/img.png/0` }));
    expect(object.ContentType).toBe("image/png");
    expect(Buffer.from(await object.Body!.transformToByteArray())).toEqual(bytes);
    const text = await client.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: `${prefix}/app/u1/user/notes%2Ftoday.md/0` }),
    );
    expect(await text.Body!.transformToString()).toBe("# hi");
    expect((await service.getArtifactVersion({ ...scope, filename: "img.png", version: 1 }))?.canonicalUri).toBe(
      `s3://${BUCKET}/${prefix}/app/u1/s1/img.png/1`,
    );
  });

  it("reads everything back through a new instance and a new client (restart)", async () => {
    await service.saveArtifact({
      ...scope,
      filename: "a.bin",
      artifact: { inlineData: { mimeType: "application/x-a", data: "AAEC" } },
      customMetadata: { n: 1 },
    });
    await service.saveArtifact({
      ...scope,
      filename: "a.bin",
      artifact: { fileData: { fileUri: "gs://b/k", mimeType: "text/csv" } },
    });
    await service.saveArtifact({ ...scope, filename: "user:p.txt", artifact: { text: "p" } });
    const before = await service.listArtifactVersions({ ...scope, filename: "a.bin" });
    await service.close();

    service = new S3ArtifactService({ bucket: BUCKET, prefix, clientConfig: s3.clientConfig });
    expect(await service.listArtifactKeys(scope)).toEqual(["a.bin", "user:p.txt"]);
    expect(await service.loadArtifact({ ...scope, filename: "a.bin", version: 0 })).toEqual({
      inlineData: { mimeType: "application/x-a", data: "AAEC" },
    });
    expect(await service.loadArtifact({ ...scope, filename: "a.bin" })).toEqual({
      fileData: { fileUri: "gs://b/k", mimeType: "text/csv" },
    });
    expect(await service.loadArtifact({ ...scope, sessionId: "s2", filename: "user:p.txt" })).toEqual({ text: "p" });
    expect(await service.listArtifactVersions({ ...scope, filename: "a.bin" })).toEqual(before);
    expect(await service.saveArtifact({ ...scope, filename: "a.bin", artifact: { text: "v2" } })).toBe(2);
  });

  it("uploads a 12 MiB artifact as multipart (lib-storage) and loads it back byte-equal", async () => {
    const recorded = recordCommands(client);
    const big = randomBytes(12 * 1024 * 1024);
    const small = new S3ArtifactService({
      bucket: BUCKET,
      prefix,
      client,
      multipartThreshold: 5 * 1024 * 1024,
      partSize: 5 * 1024 * 1024,
    });
    // Defaults: 8 MiB threshold and parts, so two parts.
    expect(
      await service.saveArtifact({
        ...scope,
        filename: "default.bin",
        artifact: { inlineData: { data: big.toString("base64") } },
      }),
    ).toBe(0);
    expect(recorded.filter((r) => r.name === "UploadPartCommand")).toHaveLength(2);
    expect(
      Buffer.from(
        (await small.loadArtifact({ ...scope, filename: "default.bin" }))!.inlineData!.data!,
        "base64",
      ).equals(big),
    ).toBe(true);
    recorded.length = 0;
    // Custom options: 5 MiB parts, so three.
    const version = await small.saveArtifact({
      ...scope,
      filename: "big.bin",
      artifact: { inlineData: { mimeType: "application/octet-stream", data: big.toString("base64") } },
      customMetadata: { size: big.length },
    });
    expect(version).toBe(0);
    const names = recorded.map((r) => r.name);
    expect(names.filter((n) => n === "UploadPartCommand")).toHaveLength(3);
    expect(names).toContain("CreateMultipartUploadCommand");
    expect(names).toContain("CompleteMultipartUploadCommand");
    expect(names).not.toContain("PutObjectCommand");
    // The completion is conditional too, so a racing writer cannot overwrite this version.
    expect(recorded.find((r) => r.name === "CompleteMultipartUploadCommand")?.headers["if-none-match"]).toBe("*");
    const loaded = await service.loadArtifact({ ...scope, filename: "big.bin" });
    expect(loaded?.inlineData?.mimeType).toBe("application/octet-stream");
    expect(Buffer.from(loaded!.inlineData!.data!, "base64").equals(big)).toBe(true);
    expect(
      (await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}/app/u1/s1/big.bin/0` })))
        .ContentLength,
    ).toBe(big.length);
    expect(await service.getArtifactVersion({ ...scope, filename: "big.bin" })).toMatchObject({
      version: 0,
      customMetadata: { size: big.length },
    });
    await small.close();
    // The client was passed in, so closing the service left it usable.
    await expect(client.send(new ListBucketsCommand({}))).resolves.toBeDefined();
  });

  it("two instances (two replicas) racing for versions lose no save, when the server enforces If-None-Match", async () => {
    const proxy = await startConditionalWriteProxy(s3.endpoint);
    const replicas = [0, 1, 2].map(
      () =>
        new S3ArtifactService({
          bucket: BUCKET,
          prefix,
          clientConfig: { ...s3.clientConfig, endpoint: proxy.endpoint },
        }),
    );
    try {
      const count = 15;
      const versions = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          replicas[i % 3]!.saveArtifact({ ...scope, filename: "user:shared.log", artifact: { text: `w${i}` } }),
        ),
      );
      expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: count }, (_, i) => i));
      const texts = await Promise.all(
        versions.map((version) => service.loadArtifact({ ...scope, filename: "user:shared.log", version })),
      );
      expect(texts.map((p) => p?.text)).toEqual(Array.from({ length: count }, (_, i) => `w${i}`));
      // The race really happened: some writes lost their number and moved on.
      expect(proxy.refused).toBeGreaterThan(0);
    } finally {
      await Promise.all(replicas.map((r) => r.close()));
      await proxy.close();
    }
  });

  it("sends small artifacts as one conditional PutObject", async () => {
    const recorded = recordCommands(client);
    await service.saveArtifact({ ...scope, filename: "s.txt", artifact: { text: "s" } });
    const puts = recorded.filter((r) => r.name === "PutObjectCommand");
    expect(puts).toHaveLength(1);
    expect(puts[0]?.headers["if-none-match"]).toBe("*");
  });

  it("keeps metadata too large for S3 headers in front of the body, and reads it back", async () => {
    const customMetadata = { description: "x".repeat(6000), nested: { list: Array.from({ length: 50 }, (_, i) => i) } };
    const artifact = {
      inlineData: {
        mimeType: "image/gif",
        data: Buffer.from("GIF89a").toString("base64"),
        displayName: "é".repeat(300),
      },
    };
    await service.saveArtifact({ ...scope, filename: "fat.gif", artifact, customMetadata });
    expect(await service.loadArtifact({ ...scope, filename: "fat.gif" })).toEqual(artifact);
    expect(await service.getArtifactVersion({ ...scope, filename: "fat.gif", version: 0 })).toMatchObject({
      mimeType: "image/gif",
      customMetadata,
    });
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: `${prefix}/app/u1/s1/fat.gif/0` }));
    expect(JSON.stringify(head.Metadata).length).toBeLessThan(2048);
  });

  it("pages through more than 1000 versions when listing, saving and deleting", async () => {
    const fileKey = `${prefix}/app/u1/s1/many.txt`;
    const meta = Buffer.from(JSON.stringify({ schema: 1, kind: "text", part: {}, createTime: 1 })).toString(
      "base64url",
    );
    const count = 1005;
    // Written straight to the bucket, in parallel, to keep the test fast.
    for (let start = 0; start < count; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - start) }, (_, i) =>
          client.send(
            new PutObjectCommand({
              Bucket: BUCKET,
              Key: `${fileKey}/${start + i}`,
              Body: `v${start + i}`,
              Metadata: { "agentkit-meta": meta },
            }),
          ),
        ),
      );
    }
    const recorded = recordCommands(client);
    const versions = await service.listVersions({ ...scope, filename: "many.txt" });
    expect(versions).toEqual(Array.from({ length: count }, (_, i) => i));
    expect(
      recorded.filter(
        (r) => r.name === "ListObjectsV2Command" && r.headers["amz-sdk-request"]?.startsWith("attempt=1;"),
      ).length,
    ).toBe(2);
    expect(await service.listArtifactKeys(scope)).toEqual(["many.txt"]);
    expect(await service.loadArtifact({ ...scope, filename: "many.txt" })).toEqual({ text: `v${count - 1}` });
    expect(await service.saveArtifact({ ...scope, filename: "many.txt", artifact: { text: "next" } })).toBe(count);
    recorded.length = 0;
    await service.deleteArtifact({ ...scope, filename: "many.txt" });
    // Two calls (retried attempts share their invocation id): 1000 keys, then the rest.
    const deletes = new Set(
      recorded.filter((r) => r.name === "DeleteObjectsCommand").map((r) => r.headers["amz-sdk-invocation-id"]),
    );
    expect(deletes.size).toBe(2);
    expect(await keys()).toEqual([]);
    expect(await service.listArtifactKeys(scope)).toEqual([]);
  });

  it("ignores foreign keys under the prefix (no version number) instead of failing", async () => {
    await service.saveArtifact({ ...scope, filename: "doc.txt", artifact: { text: "d" } });
    for (const key of [
      "app/u1/s1/doc.txt/notes",
      "app/u1/s1/doc.txt/01",
      "app/u1/s1/stray",
      "app/u1/s1/other.txt/x/0",
    ]) {
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: `${prefix}/${key}`, Body: "x" }));
    }
    expect(await service.listVersions({ ...scope, filename: "doc.txt" })).toEqual([0]);
    expect(await service.listArtifactKeys(scope)).toEqual(["doc.txt"]);
    await service.deleteArtifact({ ...scope, filename: "doc.txt" });
    expect(await keys()).toHaveLength(4);
  });

  it("rejects path-escape, hostile and too long names before any request", async () => {
    const recorded = recordCommands(client);
    const bang = "!".repeat(128); // valid ids, but 384 bytes each once percent-encoded
    for (const request of [
      { filename: "../x" },
      { filename: "/etc/passwd" },
      { filename: "a\u0001b" },
      { filename: "ok", userId: "../u" },
      { filename: "ok", appName: "" },
      { filename: "ok", appName: "." },
      { filename: "ok", sessionId: "x/../y" },
      { filename: "ok", appName: bang, userId: bang, sessionId: bang },
    ]) {
      await expect(service.saveArtifact({ ...scope, ...request, artifact: { text: "x" } })).rejects.toBeInstanceOf(
        InvalidArtifactNameError,
      );
    }
    expect(recorded).toEqual([]);
    await service.saveArtifact({
      appName: "...",
      userId: "..a",
      sessionId: "x/y",
      filename: "%2e%2e",
      artifact: { text: "x" },
    });
    expect(await keys()).toEqual([`${prefix}/%2E../%2E.a/x%2Fy/%252e%252e/0`]);
  });

  describe("errors", () => {
    it("maps a missing bucket to ARTIFACT_STORE_NOT_FOUND (verify() and operations)", async () => {
      const missing = new S3ArtifactService({ bucket: "no-such-bucket", client });
      await expect(missing.verify()).rejects.toMatchObject({ code: "ARTIFACT_STORE_NOT_FOUND", status: 404 });
      await expect(missing.saveArtifact({ ...scope, filename: "a", artifact: { text: "a" } })).rejects.toMatchObject({
        code: "ARTIFACT_STORE_NOT_FOUND",
      });
      await expect(missing.listArtifactKeys(scope)).rejects.toBeInstanceOf(ArtifactStoreError);
      await expect(service.verify()).resolves.toBeUndefined();
    });

    it("maps rejected credentials to ARTIFACT_STORE_ACCESS_DENIED", async () => {
      const wrong = new S3ArtifactService({
        bucket: BUCKET,
        clientConfig: { ...s3.clientConfig, credentials: { accessKeyId: "WRONG", secretAccessKey: "WRONG" } },
      });
      await expect(wrong.saveArtifact({ ...scope, filename: "a", artifact: { text: "a" } })).rejects.toMatchObject({
        code: "ARTIFACT_STORE_ACCESS_DENIED",
        status: 403,
      });
      await wrong.close();
    });

    it("maps an unreachable endpoint to ARTIFACT_STORE_UNAVAILABLE", async () => {
      const down = new S3ArtifactService({
        bucket: BUCKET,
        clientConfig: { ...s3.clientConfig, endpoint: "http://127.0.0.1:9", maxAttempts: 1 },
      });
      await expect(down.loadArtifact({ ...scope, filename: "a" })).rejects.toMatchObject({
        code: "ARTIFACT_STORE_UNAVAILABLE",
        backend: "s3",
      });
      await expect(down.verify()).rejects.toMatchObject({
        code: "ARTIFACT_STORE_UNAVAILABLE",
        message: expect.stringMatching(/AWS_ENDPOINT_URL_S3/),
      });
      await down.close();
    });

    it("honours an AbortSignal, for small and multipart saves", async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        service.saveArtifact({ ...scope, filename: "a", artifact: { text: "a" }, signal: controller.signal }),
      ).rejects.toMatchObject({ code: "ARTIFACT_STORE_ABORTED" });
      const multipart = new S3ArtifactService({ bucket: BUCKET, prefix, client, multipartThreshold: 1 });
      const late = new AbortController();
      // Abort as the first part goes out: the multipart upload has begun.
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName === "UploadPartCommand") late.abort();
          return next(args);
        },
        { step: "finalizeRequest", name: "abortOnFirstPart" },
      );
      const pending = multipart.saveArtifact({
        ...scope,
        filename: "big",
        artifact: { inlineData: { data: randomBytes(11 * 1024 * 1024).toString("base64") } },
        signal: late.signal,
      });
      await expect(pending).rejects.toMatchObject({ code: "ARTIFACT_STORE_ABORTED" });
      expect(await service.listVersions({ ...scope, filename: "big" })).toEqual([]);
    });

    it("refuses calls after close() and destroys only a client it created", async () => {
      const own = new S3ArtifactService({ bucket: BUCKET, clientConfig: s3.clientConfig });
      await own.close();
      await expect(own.listArtifactKeys(scope)).rejects.toMatchObject({
        code: "ARTIFACT_STORE_FAILED",
        message: expect.stringMatching(/closed/),
      });
      await service.close();
      await expect(client.send(new ListBucketsCommand({}))).resolves.toBeDefined();
    });
  });

  describe("fromUri", () => {
    it("parses bucket and prefix and takes the endpoint from AWS_ENDPOINT_URL_S3", async () => {
      const env = { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_ACCESS_KEY_ID: "S3RVER", AWS_SECRET_ACCESS_KEY: "S3RVER" };
      const fromUri = S3ArtifactService.fromUri(`s3://${BUCKET}/${prefix}/sub%20dir/`, {
        env,
        clientConfig: { credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } },
      });
      expect(fromUri.bucket).toBe(BUCKET);
      expect(fromUri.prefix).toBe(`${prefix}/sub dir`);
      expect(await fromUri.client.config.forcePathStyle).toBe(true);
      expect(await fromUri.client.config.region()).toBe("us-east-1");
      await fromUri.saveArtifact({ ...scope, filename: "via-uri.txt", artifact: { text: "ok" } });
      expect(await keys()).toEqual([`${prefix}/sub dir/app/u1/s1/via-uri.txt/0`]);
      expect(await service.loadArtifact({ ...scope, filename: "via-uri.txt" })).toBeUndefined();
      await fromUri.close();
    });

    it("falls back to AWS_ENDPOINT_URL and AWS_REGION, and takes a bucket with no prefix", async () => {
      const service2 = S3ArtifactService.fromUri(`s3://${BUCKET}`, {
        env: { AWS_ENDPOINT_URL: "http://minio.local:9000", AWS_REGION: "eu-west-3" },
      });
      expect(service2.prefix).toBe("");
      expect(await service2.client.config.region()).toBe("eu-west-3");
      expect((await service2.client.config.endpoint!()).hostname).toBe("minio.local");
      await service2.close();
      const aws = S3ArtifactService.fromUri("s3://my.bucket-1/a/b", { env: { AWS_REGION: "us-west-2" } });
      expect(aws.prefix).toBe("a/b");
      expect(await aws.client.config.forcePathStyle).toBeFalsy();
      await aws.close();
    });

    it.each([
      ["file:///tmp/x", /s3:\/\//],
      ["s3:///prefix", /no bucket/],
      ["s3://Upper_Case/x", /Invalid S3 bucket name/],
      ["s3://ab/x", /Invalid S3 bucket name/],
      ["s3://bucket/a/../b", /not allowed/],
      ["s3://bucket/a/%2E%2E/b", /not allowed/],
      ["s3://bucket/x?region=eu", /query or fragment/],
      ["s3://key:secret@bucket/x", /credentials/],
      ["::", /Invalid artifact service URI/],
    ])("rejects %s with INVALID_ARTIFACT_URI", (uri, message) => {
      expect(() => S3ArtifactService.fromUri(uri, { env: {} })).toThrow(InvalidArtifactUriError);
      expect(() => S3ArtifactService.fromUri(uri, { env: {} })).toThrow(message);
    });

    it("rejects bad constructor options with ConfigurationError", () => {
      expect(() => new S3ArtifactService({ bucket: "Bad_Bucket" })).toThrow(ConfigurationError);
      expect(() => new S3ArtifactService({ bucket: "good-bucket", prefix: "a/../b" })).toThrow(/not allowed/);
      expect(() => new S3ArtifactService({ bucket: "good-bucket", client, clientConfig: {} })).toThrow(
        /either client or clientConfig/,
      );
      expect(() => new S3ArtifactService({} as never)).toThrow(ConfigurationError);
    });

    it("rejects a malformed endpoint variable", () => {
      expect(() => S3ArtifactService.fromUri("s3://bucket/x", { env: { AWS_ENDPOINT_URL_S3: "not a url" } })).toThrow(
        /AWS_ENDPOINT_URL_S3/,
      );
    });
  });
});
