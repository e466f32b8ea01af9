import { afterEach, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigurationError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
} from "@agentkit/core";
import {
  createArtifactService,
  createMemoryService,
  createServices,
  createSessionService,
  maskUri,
} from "../src/create-services.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "agentkit-services-"));
  dirs.push(d);
  return d;
}

describe("createServices", () => {
  it("builds in-memory services from memory:// URIs", async () => {
    const services = await createServices(
      { sessionServiceUri: "memory://", artifactServiceUri: "memory://", memoryServiceUri: "memory://" },
      { agentsDir: tempDir() },
    );
    expect(services.sessionService).toBeInstanceOf(InMemorySessionService);
    expect(services.artifactService).toBeInstanceOf(InMemoryArtifactService);
    expect(services.memoryService).toBeInstanceOf(InMemoryMemoryService);
    await services.close();
  });

  it("rejects unknown schemes and non-URIs, naming the supported ones", async () => {
    await expect(createSessionService("redis://localhost")).rejects.toThrow(
      /Unknown session service URI scheme in "redis:\/\/localhost". Supported: memory:\/\//,
    );
    await expect(createArtifactService("gs://bucket")).rejects.toThrow(ConfigurationError);
    await expect(createMemoryService("sqlite:///x.db")).rejects.toThrow(/Unknown memory service URI scheme/);
    await expect(createSessionService("just-a-path")).rejects.toThrow(/Invalid session service URI "just-a-path"/);
  });

  it("masks passwords in URIs it prints", () => {
    expect(maskUri("postgres://app:s3cret@db.example:5432/agents")).toBe("postgres://app:***@db.example:5432/agents");
    expect(maskUri("mongodb://localhost:27017")).toBe("mongodb://localhost:27017");
  });

  it("fails at start, naming the URI, when a store is unreachable", async () => {
    await expect(
      createServices(
        { sessionServiceUri: "postgres://nobody:pw@127.0.0.1:1/none", artifactServiceUri: "memory://" },
        { agentsDir: tempDir(), probeTimeoutMs: 3000 },
      ),
    ).rejects.toThrow(/Cannot use the session service postgres:\/\/nobody:\*\*\*@127\.0\.0\.1:1\/none/);
  });

  it("opens the stores at once but reports their failures in order", async () => {
    // The session store opens; the artifact and memory URIs are both bad: the artifact one is
    // named, as it was when the stores opened one after the other.
    await expect(
      createServices(
        { sessionServiceUri: "memory://", artifactServiceUri: "gs://bucket", memoryServiceUri: "redis://x" },
        { agentsDir: tempDir() },
      ),
    ).rejects.toThrow(/Unknown artifact service URI scheme in "gs:\/\/bucket"/);
    await expect(
      createServices({ sessionServiceUri: "redis://x", artifactServiceUri: "gs://bucket" }, { agentsDir: tempDir() }),
    ).rejects.toThrow(/Unknown session service URI scheme/);
  });

  it("persists under <agentsDir>/.agentkit by default", async () => {
    const agentsDir = tempDir();
    const first = await createServices({}, { agentsDir });
    const session = await first.sessionService.createSession({ appName: "app", userId: "u", state: { k: 1 } });
    await first.artifactService.saveArtifact({
      appName: "app",
      userId: "u",
      sessionId: session.id,
      filename: "a.txt",
      artifact: { text: "hello" },
    });
    await first.close();
    expect(existsSync(join(agentsDir, ".agentkit", "sessions.db"))).toBe(true);
    const second = await createServices({}, { agentsDir });
    expect(
      (await second.sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id }))?.state,
    ).toEqual({ k: 1 });
    expect(
      await second.artifactService.listArtifactKeys({ appName: "app", userId: "u", sessionId: session.id }),
    ).toEqual(["a.txt"]);
    await second.close();
  });
});
