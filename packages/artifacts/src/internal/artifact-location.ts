import { isUserScopedFilename, type ArtifactRequest, type ArtifactScope } from "@agentkit/core";
import { validateArtifactRequest, validateArtifactScope } from "@agentkit/core/internal";
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

/** Encoded `[app, user]` of a scope, validated by core's rules (`validateArtifactScope`). */
export function ownerSegments(scope: ArtifactScope): [string, string] {
  validateArtifactScope(scope);
  return [encodeSegment(scope.appName), encodeSegment(scope.userId)];
}

/** The encoded session segment; a session literally named "user" is escaped so it never meets user scope. */
export function sessionSegment(sessionId: string): string {
  return sessionId === USER_SCOPE_SEGMENT ? "%75ser" : encodeSegment(sessionId);
}

/**
 * Validates a request by core's rules (`validateArtifactRequest`: names, ids, scope) and
 * returns where its artifact lives. Names are encoded into one segment each, so `a/b.txt` is
 * a valid, flat name.
 */
export function locateArtifact(request: ArtifactRequest): ArtifactLocation {
  validateArtifactRequest(request);
  const app = encodeSegment(request.appName);
  const user = encodeSegment(request.userId);
  if (isUserScopedFilename(request.filename)) {
    return { scope: [app, user, USER_SCOPE_SEGMENT], file: encodeSegment(request.filename.slice("user:".length)) };
  }
  return { scope: [app, user, sessionSegment(request.sessionId!)], file: encodeSegment(request.filename) };
}

/** Version numbers are plain non-negative decimal integers (no sign, no leading zeros). */
export function parseVersion(segment: string): number | undefined {
  if (!/^(?:0|[1-9][0-9]{0,14})$/.test(segment)) return undefined;
  return Number(segment);
}
