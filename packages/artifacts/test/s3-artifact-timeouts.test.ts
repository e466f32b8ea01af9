// S3ArtifactService's time bounds on a client it creates, against the local S3 server: through a
// proxy that stalls a request, and as the settings the client's request handler resolves.
import { randomBytes } from "node:crypto";
import { S3Client } from "@aws-sdk/client-s3";
import { ConfigurationError } from "@agentkit/core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { S3ArtifactService } from "../src/s3/index.js";
import { startS3rver, type TestS3Server } from "./support/s3rver-server.js";
import { startStallingProxy } from "./support/stalling-proxy.js";

const BUCKET = "agentkit-artifact-timeouts";
let s3: TestS3Server;

beforeAll(async () => {
  s3 = await startS3rver();
  await s3.createBucket(BUCKET);
});
afterAll(async () => {
  await s3?.close();
});

describe("S3ArtifactService time bounds", () => {
  let client: S3Client;
  let service: S3ArtifactService;
  let prefix: string;
  const scope = { appName: "app", userId: "u1", sessionId: "s1" };

  beforeEach(() => {
    prefix = `t-${randomBytes(4).toString("hex")}`;
    client = new S3Client(s3.clientConfig);
    service = new S3ArtifactService({ bucket: BUCKET, prefix: `/${prefix}/`, client });
  });
  afterEach(async () => {
    await service.close();
    client.destroy();
  });

  it("fails a save or load on a stalled endpoint after idleTimeoutMs, as ARTIFACT_STORE_UNAVAILABLE", async () => {
    const proxy = await startStallingProxy(s3.endpoint);
    const stalling = new S3ArtifactService({
      bucket: BUCKET,
      prefix,
      clientConfig: { ...s3.clientConfig, endpoint: proxy.endpoint, maxAttempts: 1 },
      idleTimeoutMs: 300,
    });
    try {
      const data = randomBytes(4096).toString("base64");
      const request = { ...scope, filename: "a" };
      // Without a stall the same configuration works.
      expect(await stalling.saveArtifact({ ...request, artifact: { inlineData: { data } } })).toBe(0);
      expect((await stalling.loadArtifact(request))?.inlineData?.data).toBe(data);
      const timedOut = { code: "ARTIFACT_STORE_UNAVAILABLE", backend: "s3", cause: { name: "TimeoutError" } };

      // The endpoint takes the PutObject and never answers.
      proxy.stall({ requestLine: /^PUT /, at: "request" });
      let started = performance.now();
      await expect(stalling.saveArtifact({ ...request, artifact: { text: "b" } })).rejects.toMatchObject(timedOut);
      expect(performance.now() - started).toBeLessThan(20_000);

      // The GetObject answers with its headers, then the body stops coming.
      proxy.stall({ requestLine: /^GET \/[^?\s]+\/a\/0[?\s]/, at: "body" });
      started = performance.now();
      await expect(stalling.loadArtifact({ ...request, version: 0 })).rejects.toMatchObject(timedOut);
      expect(performance.now() - started).toBeLessThan(20_000);
      expect(proxy.stalled).toBe(2);

      proxy.stall(undefined);
      expect((await stalling.loadArtifact({ ...request, version: 0 }))?.inlineData?.data).toBe(data);
    } finally {
      await stalling.close();
      await proxy.close();
    }
  });

  it("bounds a client it creates (connect 5 s, idle 30 s) and leaves a client or handler passed in alone", async () => {
    const handlerConfig = async (target: S3ArtifactService) => {
      await target.verify(); // the handler resolves its config on the first request
      return (
        target.client.config.requestHandler as unknown as { httpHandlerConfigs(): Record<string, unknown> }
      ).httpHandlerConfigs();
    };
    const own = new S3ArtifactService({ bucket: BUCKET, clientConfig: s3.clientConfig });
    const ownConfig = await handlerConfig(own);
    expect(ownConfig).toMatchObject({ connectionTimeout: 5000, socketTimeout: 30_000 });
    expect(ownConfig.requestTimeout).toBeUndefined();
    await own.close();
    // The options win over the same requestHandler field; its other fields are kept.
    const tuned = new S3ArtifactService({
      bucket: BUCKET,
      clientConfig: { ...s3.clientConfig, requestHandler: { socketTimeout: 1000, requestTimeout: 60_000 } },
      connectTimeoutMs: 0,
      idleTimeoutMs: 2000,
    });
    expect(await handlerConfig(tuned)).toMatchObject({
      connectionTimeout: 0,
      socketTimeout: 2000,
      requestTimeout: 60_000,
    });
    await tuned.close();
    const fromUri = S3ArtifactService.fromUri(`s3://${BUCKET}`, {
      env: { AWS_ENDPOINT_URL_S3: s3.endpoint },
      clientConfig: { credentials: s3.clientConfig.credentials },
      idleTimeoutMs: 4000,
    });
    expect(await handlerConfig(fromUri)).toMatchObject({ connectionTimeout: 5000, socketTimeout: 4000 });
    await fromUri.close();
    expect((await handlerConfig(service)).socketTimeout).toBeUndefined();

    expect(() => new S3ArtifactService({ bucket: BUCKET, idleTimeoutMs: -1 })).toThrow(ConfigurationError);
    expect(() => new S3ArtifactService({ bucket: BUCKET, connectTimeoutMs: Number.NaN })).toThrow(/connectTimeoutMs/);
    expect(() => new S3ArtifactService({ bucket: BUCKET, client, idleTimeoutMs: 1000 })).toThrow(
      /only to a client and request handler it creates/,
    );
    const handler = client.config.requestHandler;
    expect(
      () => new S3ArtifactService({ bucket: BUCKET, clientConfig: { requestHandler: handler }, idleTimeoutMs: 1000 }),
    ).toThrow(ConfigurationError);
  });
});
