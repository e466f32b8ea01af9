import { spawn } from "node:child_process";
import { watch, type FSWatcher } from "node:fs";
import { mkdtemp, mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ConfigurationError } from "@agentkit/core";
import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { FileArtifactService, InvalidArtifactNameError, InvalidArtifactUriError } from "../src/index.js";
import { runArtifactServiceContract } from "../src/testing/index.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

runArtifactServiceContract(
  "FileArtifactService",
  async () => {
    const rootDir = await mkdtemp(join(tmpdir(), "agentkit-file-artifacts-"));
    const service = new FileArtifactService({ rootDir });
    return { service, cleanup: () => rm(rootDir, { recursive: true, force: true }) };
  },
  testApi,
);

/** Every file under `dir`, as paths relative to it. */
async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();
}

describe("FileArtifactService", () => {
  let outer: string;
  let rootDir: string;
  let service: FileArtifactService;
  const scope = { appName: "app", userId: "u1", sessionId: "s1" };

  beforeEach(async () => {
    // The root sits inside `outer`, so an escape would show up as a file next to it.
    outer = await mkdtemp(join(tmpdir(), "agentkit-file-artifacts-"));
    rootDir = join(outer, "root");
    service = new FileArtifactService({ rootDir });
  });
  afterEach(async () => {
    await service.close();
    await rm(outer, { recursive: true, force: true });
  });

  it("lays versions out as <app>/<user>/<session|user>/<filename>/<version>/{data,meta.json} with raw bytes", async () => {
    const bytes = Buffer.from([0, 1, 2, 253, 254, 255]);
    await service.saveArtifact({
      ...scope,
      filename: "img.png",
      artifact: { inlineData: { mimeType: "image/png", data: bytes.toString("base64") } },
    });
    await service.saveArtifact({ ...scope, filename: "user:notes/today.md", artifact: { text: "# hi" } });
    expect(await walk(rootDir)).toEqual([
      join("app", "u1", "s1", "img.png", "0", "data"),
      join("app", "u1", "s1", "img.png", "0", "meta.json"),
      join("app", "u1", "user", "notes%2Ftoday.md", "0", "data"),
      join("app", "u1", "user", "notes%2Ftoday.md", "0", "meta.json"),
    ]);
    expect(await readFile(join(rootDir, "app", "u1", "s1", "img.png", "0", "data"))).toEqual(bytes);
    expect(await readFile(join(rootDir, "app", "u1", "user", "notes%2Ftoday.md", "0", "data"), "utf8")).toBe("# hi");
    const [info] = await service.listArtifactVersions({ ...scope, filename: "img.png" });
    expect(info?.canonicalUri).toBe(pathToFileURL(join(rootDir, "app", "u1", "s1", "img.png", "0", "data")).href);
  });

  it("keeps every name inside rootDir: hostile ids are rejected or encoded into one segment", async () => {
    const rejected: Array<Partial<typeof scope> & { filename: string }> = [
      { filename: "../../escape.txt" },
      { filename: "/etc/passwd" },
      { filename: "\\\\server\\share.txt" },
      { filename: "C:\\Windows\\x.txt" },
      { filename: "user:/abs.txt" },
      { filename: "tab\there.txt" },
      { filename: "ok.txt", appName: ".." },
      { filename: "ok.txt", appName: "../other" },
      { filename: "ok.txt", userId: "/root" },
      { filename: "ok.txt", userId: "" },
      { filename: "ok.txt", sessionId: "../../s" },
      { filename: "ok.txt", sessionId: "s\0" },
      { filename: "." },
      { filename: "./x" },
      { filename: "a/./b" },
      { filename: "ok.txt", appName: "." },
      { filename: "ok.txt", userId: "a/./b" },
    ];
    for (const request of rejected) {
      const full = { ...scope, ...request };
      await expect(service.saveArtifact({ ...full, artifact: { text: "x" } })).rejects.toBeInstanceOf(
        InvalidArtifactNameError,
      );
      await expect(service.loadArtifact(full)).rejects.toMatchObject({ code: "INVALID_ARTIFACT_NAME" });
      await expect(service.deleteArtifact(full)).rejects.toMatchObject({ code: "INVALID_ARTIFACT_NAME" });
    }
    await expect(service.listArtifactKeys({ ...scope, appName: ".." })).rejects.toBeInstanceOf(
      InvalidArtifactNameError,
    );
    // Dots, slashes and percent signs that are not escapes are encoded, and land under rootDir.
    const odd = { appName: "...", userId: "a/.../b", sessionId: ".x" };
    for (const filename of ["...", "%2e%2e", "a/.../b", ".hidden", "..x"]) {
      expect(await service.saveArtifact({ ...odd, filename, artifact: { text: filename } })).toBe(0);
      expect(await service.loadArtifact({ ...odd, filename })).toEqual({ text: filename });
    }
    expect(await readdir(outer)).toEqual(["root"]);
    expect(await readdir(rootDir)).toEqual(["%2E.."]);
    expect((await walk(rootDir)).every((p) => !p.split(sep).some((s) => s === "." || s === ".."))).toBe(true);
  });

  it("reads everything back from a new instance on the same directory (restart)", async () => {
    await service.saveArtifact({
      ...scope,
      filename: "a.bin",
      artifact: { inlineData: { mimeType: "application/x-a", data: "AAEC" } },
      customMetadata: { n: 1 },
    });
    await service.saveArtifact({
      ...scope,
      filename: "a.bin",
      artifact: { fileData: { fileUri: "s3://b/k", mimeType: "text/csv" } },
    });
    await service.saveArtifact({ ...scope, filename: "user:p.txt", artifact: { text: "p" } });
    const before = await service.listArtifactVersions({ ...scope, filename: "a.bin" });
    await service.close();

    service = FileArtifactService.fromUri(pathToFileURL(rootDir).href);
    expect(await service.listArtifactKeys(scope)).toEqual(["a.bin", "user:p.txt"]);
    expect(await service.loadArtifact({ ...scope, filename: "a.bin", version: 0 })).toEqual({
      inlineData: { mimeType: "application/x-a", data: "AAEC" },
    });
    expect(await service.loadArtifact({ ...scope, filename: "a.bin" })).toEqual({
      fileData: { fileUri: "s3://b/k", mimeType: "text/csv" },
    });
    expect(await service.loadArtifact({ ...scope, sessionId: "s2", filename: "user:p.txt" })).toEqual({ text: "p" });
    expect(await service.listArtifactVersions({ ...scope, filename: "a.bin" })).toEqual(before);
    expect(await service.saveArtifact({ ...scope, filename: "a.bin", artifact: { text: "v2" } })).toBe(2);
  });

  it("ignores what a crash mid-save leaves behind (a hidden temporary directory) and cleans it on delete", async () => {
    await service.saveArtifact({ ...scope, filename: "doc.txt", artifact: { text: "complete" } });
    const fileDir = join(rootDir, "app", "u1", "s1", "doc.txt");
    // What a process killed between writing `data` and the rename leaves: a half-written temp dir.
    await mkdir(join(fileDir, ".tmp-crashed"));
    await writeFile(join(fileDir, ".tmp-crashed", "data"), "half");
    // And a filename directory whose only save never completed.
    await mkdir(join(rootDir, "app", "u1", "s1", "never.txt", ".tmp-crashed"), { recursive: true });
    expect(await service.listVersions({ ...scope, filename: "doc.txt" })).toEqual([0]);
    expect(await service.listArtifactKeys(scope)).toEqual(["doc.txt"]);
    expect(await service.loadArtifact({ ...scope, filename: "never.txt" })).toBeUndefined();
    expect(await service.saveArtifact({ ...scope, filename: "doc.txt", artifact: { text: "next" } })).toBe(1);
    expect(await service.saveArtifact({ ...scope, filename: "never.txt", artifact: { text: "now" } })).toBe(0);
    await service.deleteArtifact({ ...scope, filename: "doc.txt" });
    expect(await readdir(join(rootDir, "app", "u1", "s1"))).toEqual(["never.txt"]);
  });

  it("a process killed (SIGKILL) in the middle of saving leaves only whole versions behind", async () => {
    const writer = fileURLToPath(new URL("./fixtures/crash-writer.ts", import.meta.url));
    const child = spawn(process.execPath, ["--conditions=@agentkit/source", "--import", "tsx", writer, rootDir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    const fileDir = join(rootDir, "app", "u1", "s1", "stream.bin");
    // After its third save, kill it the moment the next save's temporary directory appears.
    const reported = await new Promise<number[]>((resolve, reject) => {
      const done: number[] = [];
      let watcher: FSWatcher | undefined;
      const kill = () => {
        watcher?.close();
        child.kill("SIGKILL");
        // A copy: numbers still in the pipe (written before the kill) arrive after it, and the
        // save they report is then one more whole version, not one the test saw finish.
        resolve([...done]);
      };
      child.stdout.on("data", (chunk: Buffer) => {
        done.push(...chunk.toString().trim().split("\n").map(Number));
        if (done.length >= 3 && watcher === undefined) {
          watcher = watch(fileDir, (_event, name) => {
            if (name?.startsWith(".tmp-")) kill();
          });
        }
      });
      void exited.then(() => {
        watcher?.close();
        reject(new Error(`writer exited early: ${stderr}`));
      });
    });
    expect(await exited).toBe("SIGKILL");
    const left = await readdir(fileDir);

    const reopened = new FileArtifactService({ rootDir });
    const versions = await reopened.listVersions({ ...scope, filename: "stream.bin" });
    // Every reported save is there; at most the one in flight may also have landed whole.
    expect(versions.slice(0, reported.length)).toEqual(reported);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => i));
    // The kill hit a save in flight: its temporary directory was left, or it had just completed.
    expect(left.some((name) => name.startsWith(".tmp-")) || versions.length > reported.length).toBe(true);
    for (const version of versions) {
      const part = await reopened.loadArtifact({ ...scope, filename: "stream.bin", version });
      expect(part?.inlineData?.displayName).toBe(`write ${version}`);
      const bytes = Buffer.from(part!.inlineData!.data!, "base64");
      expect(bytes.length).toBe(2 * 1024 * 1024);
      expect(bytes.every((b) => b === version % 251)).toBe(true);
    }
    expect(
      await reopened.saveArtifact({ ...scope, filename: "stream.bin", artifact: { text: "after the crash" } }),
    ).toBe(versions.length);
  }, 30_000);

  it("two instances on one directory (two processes) racing for versions lose no save", async () => {
    const other = new FileArtifactService({ rootDir });
    const saves = Array.from({ length: 16 }, (_, i) =>
      (i % 2 === 0 ? service : other).saveArtifact({ ...scope, filename: "shared.log", artifact: { text: `w${i}` } }),
    );
    const versions = await Promise.all(saves);
    expect([...versions].sort((a, b) => a - b)).toEqual(Array.from({ length: 16 }, (_, i) => i));
    const texts = await Promise.all(
      versions.map((version) => other.loadArtifact({ ...scope, filename: "shared.log", version })),
    );
    expect(texts.map((p) => p?.text)).toEqual(Array.from({ length: 16 }, (_, i) => `w${i}`));
    expect((await readdir(join(rootDir, "app", "u1", "s1", "shared.log"))).filter((e) => e.startsWith("."))).toEqual(
      [],
    );
  });

  it("reports a damaged meta.json as ARTIFACT_STORE_CORRUPT", async () => {
    await service.saveArtifact({ ...scope, filename: "x.txt", artifact: { text: "x" } });
    await writeFile(join(rootDir, "app", "u1", "s1", "x.txt", "0", "meta.json"), "{not json");
    await expect(service.loadArtifact({ ...scope, filename: "x.txt" })).rejects.toMatchObject({
      code: "ARTIFACT_STORE_CORRUPT",
      backend: "file",
    });
  });

  it("honours an aborted signal", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      service.saveArtifact({ ...scope, filename: "a.txt", artifact: { text: "x" }, signal: controller.signal }),
    ).rejects.toMatchObject({
      code: "ARTIFACT_STORE_ABORTED",
    });
    expect(await service.listArtifactKeys(scope)).toEqual([]);
  });

  it("maps a root that is not a directory to ARTIFACT_STORE_FAILED, never a crash, with paths relative to the root", async () => {
    await writeFile(join(outer, "a-file"), "not a directory");
    const broken = new FileArtifactService({ rootDir: join(outer, "a-file") });
    const failed = broken.saveArtifact({ ...scope, filename: "a.txt", artifact: { text: "x" } });
    await expect(failed).rejects.toMatchObject({
      name: "ArtifactStoreError",
      code: "ARTIFACT_STORE_FAILED",
      backend: "file",
      message: expect.stringMatching(/(ENOTDIR|EEXIST).*'<rootDir>\/app\/u1\/s1\/a\.txt/),
    });
    await expect(failed).rejects.not.toThrow(outer);
    expect(await broken.listArtifactKeys(scope)).toEqual([]);
  });

  it("refuses a name longer than a directory name once encoded with INVALID_ARTIFACT_NAME, before any I/O", async () => {
    // Within core's 255 bytes, but 28 CJK characters are 252 bytes of `%XX`; 29 are 261.
    for (const request of [
      { filename: "東".repeat(29) },
      { filename: `user:${"東".repeat(29)}` },
      { filename: "!".repeat(86) },
      { filename: "ok", sessionId: "!".repeat(86) },
      { filename: "ok", userId: "東".repeat(29) },
    ]) {
      const full = { ...scope, ...request };
      const refused = service.saveArtifact({ ...full, artifact: { text: "x" } });
      await expect(refused).rejects.toBeInstanceOf(InvalidArtifactNameError);
      await expect(refused).rejects.toThrow(/bytes once encoded for the file store, which allows 255/);
      await expect(service.loadArtifact(full)).rejects.toMatchObject({ code: "INVALID_ARTIFACT_NAME" });
      await expect(service.listVersions(full)).rejects.toMatchObject({ code: "INVALID_ARTIFACT_NAME" });
      await expect(service.deleteArtifact(full)).rejects.toMatchObject({ code: "INVALID_ARTIFACT_NAME" });
    }
    await expect(service.listArtifactKeys({ ...scope, sessionId: "!".repeat(86) })).rejects.toBeInstanceOf(
      InvalidArtifactNameError,
    );
    expect(await readdir(outer)).toEqual([]); // nothing was created

    expect(await service.saveArtifact({ ...scope, filename: "東".repeat(28), artifact: { text: "fits" } })).toBe(0);
    expect(await service.saveArtifact({ ...scope, filename: "n".repeat(255), artifact: { text: "fits" } })).toBe(0);
  });

  it("a save racing a delete of the same filename either lands whole or is gone, never half", async () => {
    for (let round = 0; round < 10; round++) {
      await service.saveArtifact({ ...scope, filename: "churn.txt", artifact: { text: "base" } });
      const [version] = await Promise.all([
        service.saveArtifact({ ...scope, filename: "churn.txt", artifact: { text: `round ${round}` } }),
        service.deleteArtifact({ ...scope, filename: "churn.txt" }),
      ]);
      const loaded = await service.loadArtifact({ ...scope, filename: "churn.txt", version });
      if (loaded !== undefined) expect(loaded).toEqual({ text: `round ${round}` });
      for (const v of await service.listVersions({ ...scope, filename: "churn.txt" })) {
        expect(await service.loadArtifact({ ...scope, filename: "churn.txt", version: v })).toBeDefined();
      }
      await service.deleteArtifact({ ...scope, filename: "churn.txt" });
    }
  });

  describe("fromUri", () => {
    it("takes file:///abs/dir and file://localhost/abs/dir, decoding escapes", () => {
      expect(FileArtifactService.fromUri("file:///var/lib/agentkit/artifacts").rootDir).toBe(
        "/var/lib/agentkit/artifacts",
      );
      expect(FileArtifactService.fromUri("file://localhost/tmp/a%20b").rootDir).toBe("/tmp/a b");
    });

    it("rejects a missing rootDir with ConfigurationError", () => {
      expect(() => new FileArtifactService({ rootDir: "" })).toThrow(ConfigurationError);
    });

    it.each([
      ["s3://bucket/prefix", /file:\/\//],
      ["file://relative/dir", /host "relative"/],
      ["file:///", /absolute directory/],
      ["file:///tmp/x?mode=1", /query or fragment/],
      ["not a uri", /Invalid artifact service URI/],
    ])("rejects %s with INVALID_ARTIFACT_URI", (uri, message) => {
      expect(() => FileArtifactService.fromUri(uri)).toThrow(InvalidArtifactUriError);
      expect(() => FileArtifactService.fromUri(uri)).toThrow(message);
    });
  });
});
