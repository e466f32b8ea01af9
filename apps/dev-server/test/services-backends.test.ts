import { afterAll, afterEach, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { ConfigurationError, createEvent } from "@agentkit/core";
import { S3ArtifactService } from "@agentkit/artifacts/s3";
import { MongoMemoryService, MongoSessionService } from "@agentkit/sessions/mongodb";
import { ManagedSessionService } from "@agentkit/sessions/managed";
import { MongoWireServer } from "@agentkit/test-support/mongodb";
import { ManagedSessionServer } from "@agentkit/test-support/managed-sessions";
import { createServices, type Services } from "../src/create-services.js";

// Each remote backend, selected by its URI through createServices, against a real local
// server: the MongoDB wire-protocol test server, s3rver, and the managed sessions fake.

const dirs: string[] = [];
const opened: Services[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "agentkit-services-"));
  dirs.push(d);
  return d;
}
async function open(uris: Parameters<typeof createServices>[0], probeTimeoutMs = 5000): Promise<Services> {
  const services = await createServices(uris, { agentsDir: tempDir(), probeTimeoutMs });
  opened.push(services);
  return services;
}

/** A local port nobody listens on (bound, then released): connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Sets environment variables for one test and puts the old values back. */
function withEnv(values: Record<string, string>): () => void {
  const old = Object.fromEntries(Object.keys(values).map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  return () => {
    for (const [k, v] of Object.entries(old)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
}

describe("createServices with mongodb://", () => {
  let server: MongoWireServer;
  beforeAll(async () => {
    server = await MongoWireServer.start();
  });
  afterAll(async () => {
    await server.close();
  });

  it("builds Mongo session and memory services that round-trip a session", async () => {
    const uri = server.uri.replace("/?", "/devserver?");
    const services = await open({ sessionServiceUri: uri, artifactServiceUri: "memory://", memoryServiceUri: uri });
    expect(services.sessionService).toBeInstanceOf(MongoSessionService);
    expect(services.memoryService).toBeInstanceOf(MongoMemoryService);
    const session = await services.sessionService.createSession({
      appName: "app",
      userId: "u",
      state: { "user:name": "Ada" },
    });
    await services.sessionService.appendEvent({
      session,
      event: createEvent({
        author: "user",
        content: { role: "user", parts: [{ text: "remember the blue kettle" }] },
        actions: { stateDelta: { k: 1 } },
      }),
    });
    await services.memoryService.addSessionToMemory(session);
    await services.close();
    opened.splice(0);

    const again = await open({ sessionServiceUri: uri, artifactServiceUri: "memory://", memoryServiceUri: uri });
    const read = await again.sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id });
    expect(read?.state).toEqual({ "user:name": "Ada", k: 1 });
    expect(read?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["remember the blue kettle"]);
    const found = await again.memoryService.searchMemory({ appName: "app", userId: "u", query: "kettle" });
    expect(found.memories).toHaveLength(1);
  }, 30_000);

  it("fails at start, naming the masked URI, when the memory service is unreachable", async () => {
    const port = await closedPort();
    const uri = `mongodb://agent:secret@127.0.0.1:${port}/mem?directConnection=true&serverSelectionTimeoutMS=300`;
    // The probe would wait a minute: failing within the test's time means the URI's 300 ms was honoured.
    const failure = createServices(
      { sessionServiceUri: "memory://", artifactServiceUri: "memory://", memoryServiceUri: uri },
      { agentsDir: tempDir(), probeTimeoutMs: 60_000 },
    );
    await expect(failure).rejects.toThrow(ConfigurationError);
    await expect(failure).rejects.toThrow(`Cannot use the memory service mongodb://agent:***@127.0.0.1:${port}/mem`);
    await expect(failure).rejects.not.toThrow(/secret/);
  }, 20_000);

  it("fails at start when the session store is unreachable", async () => {
    const port = await closedPort();
    const uri = `mongodb://127.0.0.1:${port}/s?directConnection=true&serverSelectionTimeoutMS=300`;
    await expect(
      createServices(
        { sessionServiceUri: uri, artifactServiceUri: "memory://" },
        { agentsDir: tempDir(), probeTimeoutMs: 5000 },
      ),
    ).rejects.toThrow(
      new RegExp(
        `Cannot use the session service mongodb://127\\.0\\.0\\.1:${port}/s.*MongoDB start of MongoSessionService`,
      ),
    );
  }, 20_000);
});

describe("createServices with s3://bucket/prefix", () => {
  let s3: S3rver;
  let endpoint: string;
  let dir: string;
  let restoreEnv: () => void = () => undefined;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "agentkit-s3rver-"));
    s3 = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory: dir });
    const { port } = await s3.run();
    endpoint = `http://127.0.0.1:${port}`;
    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
    });
    await client.send(new CreateBucketCommand({ Bucket: "agent-artifacts" }));
    client.destroy();
  });
  afterEach(() => restoreEnv());
  afterAll(async () => {
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("builds an S3ArtifactService from the environment's endpoint and credentials and round-trips an artifact", async () => {
    // No AWS_REQUEST_CHECKSUM_CALCULATION here: fromUri must choose
    // WHEN_REQUIRED for a custom endpoint itself (toolchain.md 4c).
    restoreEnv = withEnv({
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_REGION: "us-east-1",
    });
    const services = await open({
      sessionServiceUri: "memory://",
      artifactServiceUri: "s3://agent-artifacts/dev/runs",
    });
    expect(services.artifactService).toBeInstanceOf(S3ArtifactService);
    const data = Buffer.alloc(70_000, 7).toString("base64");
    const key = { appName: "app", userId: "u", sessionId: "s1" };
    await services.artifactService.saveArtifact({
      ...key,
      filename: "blob.bin",
      artifact: { inlineData: { mimeType: "application/octet-stream", data } },
    });
    await services.artifactService.saveArtifact({ ...key, filename: "user:note.txt", artifact: { text: "hi" } });
    expect(await services.artifactService.listArtifactKeys(key)).toEqual(["blob.bin", "user:note.txt"]);
    const back = await services.artifactService.loadArtifact({ ...key, filename: "blob.bin" });
    expect(Buffer.from(back?.inlineData?.data ?? "", "base64")).toHaveLength(70_000);
    expect(back?.inlineData?.data).toBe(data);
  }, 30_000);

  it("fails at start, naming the URI, when the bucket does not exist", async () => {
    restoreEnv = withEnv({
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_REGION: "us-east-1",
    });
    await expect(open({ sessionServiceUri: "memory://", artifactServiceUri: "s3://no-such-bucket/p" })).rejects.toThrow(
      /Cannot use the artifact service s3:\/\/no-such-bucket\/p/,
    );
  }, 20_000);

  it("fails at start when the S3 endpoint refuses connections", async () => {
    const port = await closedPort();
    restoreEnv = withEnv({
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
      AWS_ACCESS_KEY_ID: "S3RVER",
      AWS_SECRET_ACCESS_KEY: "S3RVER",
      AWS_REGION: "us-east-1",
      AWS_MAX_ATTEMPTS: "1",
    });
    // The probe would wait a minute: the refusal itself fails the start, without retries.
    await expect(
      open({ sessionServiceUri: "memory://", artifactServiceUri: "s3://agent-artifacts/p" }, 60_000),
    ).rejects.toThrow(/Cannot use the artifact service s3:\/\/agent-artifacts\/p: .*(ECONNREFUSED|connect)/i);
  }, 20_000);
});

describe("createServices with agentengine://", () => {
  let fake: ManagedSessionServer;
  let restoreEnv: () => void = () => undefined;
  beforeAll(async () => {
    fake = await ManagedSessionServer.start({ token: "test-token", operationPolls: 1 });
  });
  afterEach(() => restoreEnv());
  afterAll(async () => {
    await fake.close();
  });

  it("builds a ManagedSessionService on the engine the URI names and round-trips a session", async () => {
    restoreEnv = withEnv({ GOOGLE_ACCESS_TOKEN: "test-token", AGENTKIT_MANAGED_SESSIONS_BASE_URL: fake.url });
    const services = await open({
      sessionServiceUri: "agentengine://projects/p1/locations/us-central1/reasoningEngines/42",
      artifactServiceUri: "memory://",
    });
    expect(services.sessionService).toBeInstanceOf(ManagedSessionService);
    const session = await services.sessionService.createSession({
      appName: "app",
      userId: "u",
      sessionId: "chat-1",
      state: { mood: "calm" },
    });
    await services.sessionService.appendEvent({
      session,
      event: createEvent({
        author: "agent",
        content: { role: "model", parts: [{ text: "hello" }] },
        actions: { stateDelta: { turns: 1 } },
      }),
    });
    const read = await services.sessionService.getSession({ appName: "app", userId: "u", sessionId: "chat-1" });
    expect(read?.state).toEqual({ mood: "calm", turns: 1 });
    expect(read?.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["hello"]);
    const paths = fake.requests.map((r) => r.path);
    expect(
      paths.every((p) => p.startsWith("/v1beta1/projects/p1/locations/us-central1/reasoningEngines/42/sessions")),
    ).toBe(true);
    expect(fake.requests.every((r) => r.authorization === "Bearer test-token")).toBe(true);
  }, 30_000);

  it("fails at start when the managed service rejects the credentials", async () => {
    restoreEnv = withEnv({ GOOGLE_ACCESS_TOKEN: "wrong", AGENTKIT_MANAGED_SESSIONS_BASE_URL: fake.url });
    await expect(
      open({
        sessionServiceUri: "agentengine://projects/p1/locations/us-central1/reasoningEngines/42",
        artifactServiceUri: "memory://",
      }),
    ).rejects.toThrow(
      /Cannot use the session service agentengine:\/\/projects\/p1\/locations\/us-central1\/reasoningEngines\/42: .*(401|authentication)/i,
    );
  }, 20_000);
});
