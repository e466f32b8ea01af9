import type { Part } from "../content/content.js";

export interface ArtifactScope {
  appName: string;
  userId: string;
  /** Omitted for `user:`-prefixed filenames, which belong to the user across sessions. */
  sessionId?: string;
}

export interface SaveArtifactRequest extends ArtifactScope {
  filename: string;
  artifact: Part;
  customMetadata?: Record<string, unknown>;
}

export interface LoadArtifactRequest extends ArtifactScope {
  filename: string;
  /** The latest when omitted. */
  version?: number;
}

export interface ArtifactRequest extends ArtifactScope {
  filename: string;
}

/** Metadata of one stored version. */
export interface ArtifactVersion {
  version: number;
  canonicalUri?: string;
  customMetadata?: Record<string, unknown>;
  /** Float seconds. */
  createTime: number;
  mimeType?: string;
}

/**
 * Stores versioned binary artifacts (as `Part`s). Versions count from 0 per filename.
 * Filenames starting with `user:` are scoped to the user, not the session.
 */
export abstract class BaseArtifactService {
  /** Stores a new version and returns its number. */
  abstract saveArtifact(request: SaveArtifactRequest): Promise<number>;
  /** The part, or `undefined` when the artifact or version does not exist. */
  abstract loadArtifact(request: LoadArtifactRequest): Promise<Part | undefined>;
  /** Filenames visible to the session (its own and the user's), sorted. */
  abstract listArtifactKeys(request: ArtifactScope): Promise<string[]>;
  /** Versions ascending; `[]` for an unknown filename. */
  abstract listVersions(request: ArtifactRequest): Promise<number[]>;
  /** Deletes every version; idempotent. */
  abstract deleteArtifact(request: ArtifactRequest): Promise<void>;
  /** Metadata of every version, ascending. */
  abstract listArtifactVersions(request: ArtifactRequest): Promise<ArtifactVersion[]>;
  /** Metadata of one version (latest when omitted), or `undefined`. */
  async getArtifactVersion(request: LoadArtifactRequest): Promise<ArtifactVersion | undefined> {
    const all = await this.listArtifactVersions(request);
    if (request.version === undefined) return all[all.length - 1];
    return all.find((v) => v.version === request.version);
  }
  async close(): Promise<void> {}
}

/** True for filenames that belong to the user rather than one session. */
export function isUserScopedFilename(filename: string): boolean {
  return filename.startsWith("user:");
}
