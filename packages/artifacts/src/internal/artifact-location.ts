import { AgentKitError, isUserScopedFilename, type ArtifactRequest, type ArtifactScope } from "@agentkit/core";
import { validateArtifactFilename } from "@agentkit/core/internal";
import { InvalidArtifactNameError, InvalidArtifactScopeError } from "../errors/artifact-errors.js";
import { encodeSegment } from "./path-segment.js";

/** The scope segment of `user:` artifacts: `<app>/<user>/user/<filename>/<version>`. */
export const USER_SCOPE_SEGMENT = "user";

/** Where one artifact lives, as encoded segments shared by the file and S3 layouts. */
export interface ArtifactLocation {
  /** `[app, user, session-or-"user"]`. */
  scope: [string, string, string];
  /** The encoded filename, without its `user:` prefix. */
  file: string;
}

// C0 control bytes and DEL: never part of a sensible name, and NUL truncates paths in C APIs.
const CONTROL = /[\u0000-\u001f\u007f]/;
const ABSOLUTE = /^(?:[/\\]|[A-Za-z]:[/\\])/;

/**
 * Rejects what a persistent backend must not store, with `InvalidArtifactNameError`: core's
 * rules (empty, NUL, `..` segments) plus control bytes and absolute paths. Names are encoded
 * into one segment afterwards, so `a/b.txt` is a valid, flat name.
 */
export function validateStoredName(label: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || value.length === 0) {
    throw new InvalidArtifactNameError(`The artifact ${label} must be a non-empty string.`);
  }
  if (label === "filename") {
    try {
      validateArtifactFilename(value);
    } catch (error) {
      if (error instanceof AgentKitError) throw new InvalidArtifactNameError(error.message, { cause: error });
      throw error;
    }
  }
  const bare = label === "filename" && isUserScopedFilename(value) ? value.slice("user:".length) : value;
  if (CONTROL.test(bare)) {
    throw new InvalidArtifactNameError(
      `The artifact ${label} ${JSON.stringify(value)} contains a control character; remove it.`,
    );
  }
  if (ABSOLUTE.test(bare)) {
    throw new InvalidArtifactNameError(
      `The artifact ${label} ${JSON.stringify(value)} is an absolute path; use a relative name.`,
    );
  }
  if (bare.split(/[/\\]/).some((segment) => segment === "..")) {
    throw new InvalidArtifactNameError(
      `The artifact ${label} ${JSON.stringify(value)} contains a ".." path segment; remove it.`,
    );
  }
}

/** Encoded `[app, user]` of a scope, validated. */
export function ownerSegments({ appName, userId }: ArtifactScope): [string, string] {
  validateStoredName("appName", appName);
  validateStoredName("userId", userId);
  return [encodeSegment(appName), encodeSegment(userId)];
}

/** The encoded session segment; a session literally named "user" is escaped so it never meets user scope. */
export function sessionSegment(sessionId: string): string {
  validateStoredName("sessionId", sessionId);
  return sessionId === USER_SCOPE_SEGMENT ? "%75ser" : encodeSegment(sessionId);
}

/** Validates a request and returns where its artifact lives. */
export function locateArtifact(request: ArtifactRequest): ArtifactLocation {
  validateStoredName("filename", request.filename);
  const [app, user] = ownerSegments(request);
  if (isUserScopedFilename(request.filename)) {
    return { scope: [app, user, USER_SCOPE_SEGMENT], file: encodeSegment(request.filename.slice("user:".length)) };
  }
  if (request.sessionId === undefined || request.sessionId === "") {
    throw new InvalidArtifactScopeError(
      `Artifact ${JSON.stringify(request.filename)} is session-scoped, so sessionId is required; prefix the filename with "user:" to share it across sessions.`,
    );
  }
  return { scope: [app, user, sessionSegment(request.sessionId)], file: encodeSegment(request.filename) };
}

/** Version numbers are plain non-negative decimal integers (no sign, no leading zeros). */
export function parseVersion(segment: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]{0,14})$/.test(segment)) return undefined;
  return Number(segment);
}
