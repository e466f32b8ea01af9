import type { Part } from "../content/content.js";
import { nowSeconds } from "../events/event.js";
import {
  artifactMimeType,
  validateArtifactPart,
  validateArtifactRequest,
  validateArtifactScope,
} from "./artifact-validation.js";
import {
  BaseArtifactService,
  isUserScopedFilename,
  type ArtifactRequest,
  type ArtifactScope,
  type ArtifactVersion,
  type LoadArtifactRequest,
  type SaveArtifactRequest,
} from "./base-artifact-service.js";

interface StoredVersion {
  part: Part;
  meta: ArtifactVersion;
}

/**
 * Keeps artifacts in process memory (tests, development). Stores and returns deep copies, so
 * neither the saver nor a loader can change a stored version afterwards.
 */
export class InMemoryArtifactService extends BaseArtifactService {
  /** Key (see `keyOf`) → versions, index = version number. */
  private readonly artifacts = new Map<string, StoredVersion[]>();

  override async saveArtifact(request: SaveArtifactRequest): Promise<number> {
    validateArtifactRequest(request);
    validateArtifactPart(request.artifact);
    const key = this.keyOf(request);
    let versions = this.artifacts.get(key);
    if (!versions) this.artifacts.set(key, (versions = []));
    const version = versions.length;
    const meta: ArtifactVersion = {
      version,
      canonicalUri: this.uriOf(request, version),
      createTime: nowSeconds(),
    };
    const mimeType = artifactMimeType(request.artifact);
    if (mimeType !== undefined) meta.mimeType = mimeType;
    if (request.customMetadata !== undefined) meta.customMetadata = structuredClone(request.customMetadata);
    versions.push({ part: structuredClone(request.artifact), meta });
    return version;
  }

  override async loadArtifact(request: LoadArtifactRequest): Promise<Part | undefined> {
    validateArtifactRequest(request);
    const versions = this.artifacts.get(this.keyOf(request));
    if (!versions || versions.length === 0) return undefined;
    const stored = request.version === undefined ? versions[versions.length - 1] : versions[request.version];
    return stored ? structuredClone(stored.part) : undefined;
  }

  override async listArtifactKeys({ appName, userId, sessionId }: ArtifactScope): Promise<string[]> {
    validateArtifactScope({ appName, userId, sessionId });
    const names = new Set<string>();
    for (const [key, versions] of this.artifacts) {
      if (versions.length === 0) continue;
      const [app, user, session, filename] = JSON.parse(key) as [string, string, string | null, string];
      if (app !== appName || user !== userId) continue;
      if (session === null || (sessionId !== undefined && session === sessionId)) names.add(filename);
    }
    return [...names].sort();
  }

  override async listVersions(request: ArtifactRequest): Promise<number[]> {
    validateArtifactRequest(request);
    return (this.artifacts.get(this.keyOf(request)) ?? []).map((v) => v.meta.version);
  }

  override async deleteArtifact(request: ArtifactRequest): Promise<void> {
    validateArtifactRequest(request);
    this.artifacts.delete(this.keyOf(request));
  }

  override async listArtifactVersions(request: ArtifactRequest): Promise<ArtifactVersion[]> {
    validateArtifactRequest(request);
    return (this.artifacts.get(this.keyOf(request)) ?? []).map((v) => structuredClone(v.meta));
  }

  /** `user:` files belong to (app, user); every other file to (app, user, session). Validated requests only. */
  private keyOf({ appName, userId, sessionId, filename }: ArtifactRequest): string {
    if (isUserScopedFilename(filename)) return JSON.stringify([appName, userId, null, filename]);
    return JSON.stringify([appName, userId, sessionId, filename]);
  }

  private uriOf({ appName, userId, sessionId, filename }: ArtifactRequest, version: number): string {
    const scope = isUserScopedFilename(filename) ? "" : `/sessions/${encodeURIComponent(sessionId ?? "")}`;
    return (
      `memory://apps/${encodeURIComponent(appName)}/users/${encodeURIComponent(userId)}${scope}` +
      `/artifacts/${encodeURIComponent(filename)}/versions/${version}`
    );
  }
}
