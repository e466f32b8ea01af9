import { randomUUID } from "node:crypto";
import { type FileHandle, mkdir, open, readdir, readFile, rename, rm } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
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
import { artifactMimeType, validateArtifactPart } from "@agentkit/core/internal";
import { ArtifactStoreError, ArtifactStoreErrorCode, InvalidArtifactUriError } from "../errors/artifact-errors.js";
import {
  USER_SCOPE_SEGMENT,
  locateArtifact,
  ownerSegments,
  parseVersion,
  sessionSegment,
} from "../internal/artifact-location.js";
import { isPayloadKind, joinPart, splitPart, type PayloadKind } from "../internal/part-codec.js";
import { decodeSegment } from "../internal/path-segment.js";
import type { ArtifactCallOptions } from "../internal/artifact-call-options.js";
import { errnoOf, mapFsError } from "./file-errors.js";

export interface FileArtifactServiceOptions {
  /** Directory that holds every artifact; created on the first save. Relative paths resolve against the cwd. */
  rootDir: string;
}

/** What `meta.json` of one version holds (the payload bytes live next to it in `data`). */
interface StoredMeta {
  schema: 1;
  kind: PayloadKind;
  part: Part;
  createTime: number;
  mimeType?: string;
  customMetadata?: Record<string, unknown>;
}

const DATA_FILE = "data";
/** Bytes per directory name on the usual file systems (NAME_MAX). */
const MAX_SEGMENT_BYTES = 255;
/** What each segment of `<app>/<user>/<session>/<filename>` is, for messages. */
const SEGMENT_LABELS = ["app name", "user id", "session id", "filename"] as const;
const META_FILE = "meta.json";
/** Give up after this many lost races for a version number (each loss means another save won). */
const MAX_CLAIM_ATTEMPTS = 10_000;

/**
 * Artifacts as plain files: `<rootDir>/<app>/<user>/<session | user>/<filename>/<version>/`
 * holding `data` (the raw bytes) and `meta.json`. Every name is percent-encoded into a single
 * path segment, so nothing can leave `rootDir`. A version is written into a hidden temporary
 * directory and renamed into place: readers never see half a version, a crash leaves only a
 * hidden directory that is ignored, and two writers (even in two processes) racing for one
 * version number cannot both win the rename, so no save is lost.
 */
export class FileArtifactService extends BaseArtifactService {
  readonly rootDir: string;

  constructor(options: FileArtifactServiceOptions) {
    super();
    if (typeof options?.rootDir !== "string" || options.rootDir.length === 0) {
      throw new ConfigurationError("FileArtifactService needs a rootDir (a directory path).");
    }
    this.rootDir = resolve(options.rootDir);
  }

  /** `file:///abs/dir` (a local absolute path; `file://localhost/abs/dir` also works). */
  static fromUri(uri: string): FileArtifactService {
    let url: URL;
    try {
      url = new URL(uri);
    } catch (cause) {
      throw new InvalidArtifactUriError(
        uri,
        `Invalid artifact service URI ${JSON.stringify(uri)}; expected file:///absolute/dir.`,
        { cause },
      );
    }
    if (url.protocol !== "file:") {
      throw new InvalidArtifactUriError(
        uri,
        `FileArtifactService takes a file:// URI, got ${JSON.stringify(url.protocol)}; expected file:///absolute/dir.`,
      );
    }
    if (url.host !== "" && url.host !== "localhost") {
      throw new InvalidArtifactUriError(
        uri,
        `File URI ${JSON.stringify(uri)} names host ${JSON.stringify(url.host)}; write an absolute path with three ` +
          `slashes: file:///abs/dir.`,
      );
    }
    if (url.search !== "" || url.hash !== "") {
      throw new InvalidArtifactUriError(uri, `File URI ${JSON.stringify(uri)} must not have a query or fragment.`);
    }
    const path = fileURLToPath(url);
    if (!isAbsolute(path) || path === sep) {
      throw new InvalidArtifactUriError(
        uri,
        `File URI ${JSON.stringify(uri)} must name an absolute directory other than the file system root.`,
      );
    }
    return new FileArtifactService({ rootDir: path });
  }

  override async saveArtifact(request: SaveArtifactRequest & ArtifactCallOptions): Promise<number> {
    const location = locateArtifact(request);
    validateArtifactPart(request.artifact);
    const { kind, payload, rest } = splitPart(request.artifact);
    const meta: StoredMeta = { schema: 1, kind, part: rest, createTime: nowSeconds() };
    const mimeType = artifactMimeType(request.artifact);
    if (mimeType !== undefined) meta.mimeType = mimeType;
    if (request.customMetadata !== undefined) meta.customMetadata = structuredClone(request.customMetadata);
    const dir = this.pathOf(...location.scope, location.file);
    const { signal } = request;
    try {
      for (let attempt = 0; ; attempt++) {
        signal?.throwIfAborted();
        const tmp = join(dir, `.tmp-${randomUUID()}`);
        try {
          await mkdir(dir, { recursive: true });
          await mkdir(tmp);
          await writeDurably(join(tmp, DATA_FILE), payload, signal);
          await writeDurably(join(tmp, META_FILE), JSON.stringify(meta), signal);
          const version = await this.claimVersion(dir, tmp, signal);
          if (version !== undefined) return version;
        } catch (error) {
          // ENOENT here means the filename directory was deleted meanwhile: retry below.
          if (errnoOf(error) !== "ENOENT") throw error;
        } finally {
          await rm(tmp, { recursive: true, force: true });
        }
        // The filename directory vanished under us (a concurrent delete): write again.
        if (attempt >= 3) {
          throw new ArtifactStoreError(
            ArtifactStoreErrorCode.CONFLICT,
            `Artifact ${request.filename} was deleted repeatedly while being saved.`,
            {
              backend: "file",
            },
          );
        }
      }
    } catch (error) {
      throw mapFsError(error, `save of ${JSON.stringify(request.filename)}`, signal, this.rootDir);
    }
  }

  override async loadArtifact(request: LoadArtifactRequest & ArtifactCallOptions): Promise<Part | undefined> {
    const location = locateArtifact(request);
    const dir = this.pathOf(...location.scope, location.file);
    try {
      const versions = await listVersionDirs(dir);
      const version =
        request.version === undefined ? versions[versions.length - 1] : versions.find((v) => v === request.version);
      if (version === undefined) return undefined;
      const vdir = join(dir, String(version));
      const meta = await readMeta(vdir, request.signal, this.rootDir);
      if (meta === undefined) return undefined;
      const payload =
        meta.kind === "none" ? Buffer.alloc(0) : await readFile(join(vdir, DATA_FILE), { signal: request.signal });
      return joinPart(meta.kind, meta.part, payload);
    } catch (error) {
      // Deleted between listing and reading: the artifact is gone, as the caller would see a moment later.
      if (errnoOf(error) === "ENOENT") return undefined;
      throw mapFsError(error, `load of ${JSON.stringify(request.filename)}`, request.signal, this.rootDir);
    }
  }

  override async listArtifactKeys(request: ArtifactScope & ArtifactCallOptions): Promise<string[]> {
    const [app, user] = ownerSegments(request);
    const scopes: Array<[string, string]> = [[USER_SCOPE_SEGMENT, "user:"]];
    if (request.sessionId !== undefined && request.sessionId !== "")
      scopes.push([sessionSegment(request.sessionId), ""]);
    try {
      const names = new Set<string>();
      for (const [scope, namePrefix] of scopes) {
        request.signal?.throwIfAborted();
        const scopeDir = this.pathOf(app, user, scope);
        const entries = await readdirOrEmpty(scopeDir);
        const found = await Promise.all(
          entries.map(async (entry) => {
            const name = decodeSegment(entry);
            if (name === undefined) return undefined;
            return (await listVersionDirs(join(scopeDir, entry))).length > 0 ? namePrefix + name : undefined;
          }),
        );
        for (const name of found) if (name !== undefined) names.add(name);
      }
      return [...names].sort();
    } catch (error) {
      throw mapFsError(error, "listing", request.signal, this.rootDir);
    }
  }

  override async listVersions(request: ArtifactRequest & ArtifactCallOptions): Promise<number[]> {
    const location = locateArtifact(request);
    try {
      return await listVersionDirs(this.pathOf(...location.scope, location.file));
    } catch (error) {
      throw mapFsError(error, `version listing of ${JSON.stringify(request.filename)}`, request.signal, this.rootDir);
    }
  }

  override async listArtifactVersions(request: ArtifactRequest & ArtifactCallOptions): Promise<ArtifactVersion[]> {
    const location = locateArtifact(request);
    const dir = this.pathOf(...location.scope, location.file);
    try {
      const versions = await listVersionDirs(dir);
      const metas = await Promise.all(
        versions.map((version) => readMeta(join(dir, String(version)), request.signal, this.rootDir)),
      );
      const out: ArtifactVersion[] = [];
      versions.forEach((version, i) => {
        const meta = metas[i];
        if (meta === undefined) return;
        const info: ArtifactVersion = {
          version,
          canonicalUri: pathToFileURL(join(dir, String(version), DATA_FILE)).href,
          createTime: meta.createTime,
        };
        if (meta.mimeType !== undefined) info.mimeType = meta.mimeType;
        if (meta.customMetadata !== undefined) info.customMetadata = meta.customMetadata;
        out.push(info);
      });
      return out;
    } catch (error) {
      throw mapFsError(error, `version listing of ${JSON.stringify(request.filename)}`, request.signal, this.rootDir);
    }
  }

  override async deleteArtifact(request: ArtifactRequest & ArtifactCallOptions): Promise<void> {
    const location = locateArtifact(request);
    const fileDir = this.pathOf(...location.scope, location.file);
    const scopeDir = this.pathOf(...location.scope);
    // Renamed away first, so readers see every version disappear at once, never a partial set.
    const doomed = join(scopeDir, `.deleting-${randomUUID()}`);
    try {
      request.signal?.throwIfAborted();
      await rename(fileDir, doomed);
    } catch (error) {
      if (errnoOf(error) === "ENOENT") return;
      throw mapFsError(error, `delete of ${JSON.stringify(request.filename)}`, request.signal, this.rootDir);
    }
    try {
      await rm(doomed, { recursive: true, force: true });
    } catch (error) {
      throw mapFsError(error, `delete of ${JSON.stringify(request.filename)}`, request.signal, this.rootDir);
    }
  }

  /**
   * Joins encoded segments under the root. Refuses a segment longer than a directory name may
   * be (`InvalidArtifactNameError`: percent-encoding can triple a name, so a name core accepts
   * may still not fit), and checks (defence in depth) that the result stays under the root.
   */
  private pathOf(...segments: string[]): string {
    segments.forEach((segment, i) => {
      const bytes = Buffer.byteLength(segment, "utf8");
      if (bytes > MAX_SEGMENT_BYTES) {
        throw new InvalidArtifactNameError(
          `The artifact ${SEGMENT_LABELS[i] ?? "name"} is ${bytes} bytes once encoded for the file store, which ` +
            `allows ${MAX_SEGMENT_BYTES} per name; use a shorter one (every character outside A-Z a-z 0-9 _ - . ~ ` +
            `and space takes 3 bytes per UTF-8 byte).`,
        );
      }
    });
    const path = join(this.rootDir, ...segments);
    const root = this.rootDir.endsWith(sep) ? this.rootDir : this.rootDir + sep;
    if (!path.startsWith(root)) {
      throw new ArtifactStoreError(
        ArtifactStoreErrorCode.FAILED,
        "Refusing an artifact path outside the root directory.",
        {
          backend: "file",
        },
      );
    }
    return path;
  }

  /**
   * Renames the finished temporary directory to the next free version number. rename(2) onto
   * an existing, non-empty directory fails, so exactly one writer wins each number; losers
   * move on to the next. `undefined` when the filename directory itself was deleted.
   */
  private async claimVersion(dir: string, tmp: string, signal: AbortSignal | undefined): Promise<number | undefined> {
    let next = nextVersion(await listVersionDirs(dir));
    for (let attempt = 0; attempt < MAX_CLAIM_ATTEMPTS; attempt++) {
      signal?.throwIfAborted();
      try {
        await rename(tmp, join(dir, String(next)));
        await syncDirectory(dir);
        return next;
      } catch (error) {
        const code = errnoOf(error);
        if (code === "ENOENT") return undefined;
        if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
        next = Math.max(next + 1, nextVersion(await listVersionDirs(dir)));
      }
    }
    throw new ArtifactStoreError(
      ArtifactStoreErrorCode.CONFLICT,
      `Gave up after ${MAX_CLAIM_ATTEMPTS} concurrent saves won the next version of this artifact.`,
      {
        backend: "file",
      },
    );
  }
}

function nextVersion(versions: number[]): number {
  return versions.length === 0 ? 0 : versions[versions.length - 1]! + 1;
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (errnoOf(error) === "ENOENT" || errnoOf(error) === "ENOTDIR") return [];
    throw error;
  }
}

/** Committed versions of one filename, ascending (temporary entries are not numbers and are skipped). */
async function listVersionDirs(dir: string): Promise<number[]> {
  const versions: number[] = [];
  for (const entry of await readdirOrEmpty(dir)) {
    const version = parseVersion(entry);
    if (version !== undefined) versions.push(version);
  }
  return versions.sort((a, b) => a - b);
}

/** A version's metadata; `undefined` when it was deleted meanwhile. */
async function readMeta(
  vdir: string,
  signal: AbortSignal | undefined,
  rootDir: string,
): Promise<StoredMeta | undefined> {
  const shown = relative(rootDir, join(vdir, META_FILE)).split(sep).join("/");
  let text: string;
  try {
    text = await readFile(join(vdir, META_FILE), { encoding: "utf8", signal });
  } catch (error) {
    if (errnoOf(error) === "ENOENT") return undefined;
    throw error;
  }
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (cause) {
    throw new ArtifactStoreError(
      ArtifactStoreErrorCode.CORRUPT,
      `Artifact metadata ${shown} (under the root directory) is not valid JSON.`,
      { backend: "file", cause },
    );
  }
  const m = meta as Partial<StoredMeta> | null;
  if (
    m === null ||
    typeof m !== "object" ||
    m.schema !== 1 ||
    !isPayloadKind(m.kind) ||
    typeof m.part !== "object" ||
    typeof m.createTime !== "number"
  ) {
    throw new ArtifactStoreError(
      ArtifactStoreErrorCode.CORRUPT,
      `Artifact metadata ${shown} (under the root directory) has an unknown shape.`,
      { backend: "file" },
    );
  }
  return m as StoredMeta;
}

/** Writes and fsyncs a file, so a version renamed into place is on disk, not only in the page cache. */
async function writeDurably(path: string, data: string | Uint8Array, signal: AbortSignal | undefined): Promise<void> {
  const handle = await open(path, "wx");
  try {
    await handle.writeFile(data, { signal });
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a rename durable; some platforms cannot open directories, which is harmless to skip. */
async function syncDirectory(dir: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(dir, "r");
    await handle.sync();
  } catch {
    // Best effort only.
  } finally {
    await handle?.close();
  }
}
