import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";
import S3rver from "s3rver";

/** A real S3-compatible server (s3rver) on 127.0.0.1, a random port and a temporary directory. */
export interface TestS3Server {
  endpoint: string;
  /** Client settings for it (toolchain.md 4c: checksums only when required). */
  clientConfig: S3ClientConfig;
  createBucket(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function startS3rver(): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), "agentkit-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clientConfig: S3ClientConfig = {
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    requestChecksumCalculation: "WHEN_REQUIRED",
  };
  return {
    endpoint,
    clientConfig,
    async createBucket(name) {
      const client = new S3Client(clientConfig);
      try {
        await client.send(new CreateBucketCommand({ Bucket: name }));
      } finally {
        client.destroy();
      }
    },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
