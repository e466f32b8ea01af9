import type { Part } from "../content/content.js";
import { AgentKitError } from "../errors/agentkit-error.js";
import { InvalidArtifactNameError, InvalidArtifactScopeError } from "../errors/artifact-errors.js";
import { nameProblem, preview, sessionKeyProblem } from "../sessions/session-key-validation.js";
import { isUserScopedFilename, type ArtifactRequest, type ArtifactScope } from "./base-artifact-service.js";

/**
 * Longest artifact filename, in bytes of UTF-8, not counting a `user:` prefix: the usual file
 * name limit. A backend may hold less once it encodes the name (the file backend's percent
 * encoding must fit 255 bytes per directory name); it then refuses with the same error.
 */
export const MAX_ARTIFACT_FILENAME_BYTES = 255;

/**
 * Rejects filenames no backend may store, with `InvalidArtifactNameError`
 * (`INVALID_ARTIFACT_NAME`): not a string or empty (also after `user:`), longer than
 * `MAX_ARTIFACT_FILENAME_BYTES`, and whatever `nameProblem` refuses (lone surrogates, control
 * characters, absolute paths, `.` and `..` segments). `/` inside a name is allowed: every
 * backend stores the name as one flat key, so `a/b.txt` is not a directory.
 */
export function validateArtifactFilename(filename: unknown): asserts filename is string {
  if (typeof filename !== "string" || filename.length === 0) {
    throw new InvalidArtifactNameError("An artifact filename must be a non-empty string.");
  }
  // Checked without the `user:` prefix, which backends strip when they build a path or key.
  const bare = isUserScopedFilename(filename) ? filename.slice("user:".length) : filename;
  const problem =
    bare.length === 0 ? 'has nothing after "user:"; add a name' : nameProblem(bare, MAX_ARTIFACT_FILENAME_BYTES);
  if (problem !== undefined) throw new InvalidArtifactNameError(`Artifact filename ${preview(filename)} ${problem}.`);
}

/**
 * Rejects an artifact scope whose app name, user id or session id (when given) breaks the
 * session key rules (`sessionKeyProblem`), with `InvalidArtifactNameError`.
 */
export function validateArtifactScope(scope: ArtifactScope): void {
  const parts: [string, unknown][] = [
    ["appName", scope.appName],
    ["userId", scope.userId],
  ];
  if (scope.sessionId !== undefined && scope.sessionId !== "") parts.push(["sessionId", scope.sessionId]);
  for (const [label, value] of parts) {
    const problem = sessionKeyProblem(value);
    if (problem !== undefined)
      throw new InvalidArtifactNameError(`Invalid artifact ${label} ${preview(value)}: it ${problem}.`);
  }
}

/**
 * The one check every artifact backend runs before any I/O: the scope (`validateArtifactScope`),
 * the filename (`validateArtifactFilename`), and a sessionId for a session-scoped filename
 * (`InvalidArtifactScopeError`, `INVALID_ARTIFACT_SCOPE`).
 */
export function validateArtifactRequest(request: ArtifactRequest): void {
  validateArtifactScope(request);
  validateArtifactFilename(request.filename);
  if (!isUserScopedFilename(request.filename) && (request.sessionId === undefined || request.sessionId === "")) {
    throw new InvalidArtifactScopeError(
      `Artifact ${preview(request.filename)} is session-scoped, so sessionId is required; prefix the filename with ` +
        `"user:" to share it across sessions.`,
    );
  }
}

/** An artifact must carry data: `inlineData`, `fileData` or `text`. Throws `INVALID_ARTIFACT`. */
export function validateArtifactPart(artifact: Part): void {
  const ok =
    typeof artifact === "object" &&
    artifact !== null &&
    (artifact.inlineData !== undefined || artifact.fileData !== undefined || typeof artifact.text === "string");
  if (!ok) {
    throw new AgentKitError(
      "INVALID_ARTIFACT",
      "An artifact Part needs inlineData, fileData or text; other parts cannot be stored as artifacts.",
    );
  }
}

/** The MIME type recorded for an artifact version (from its inline or file data). */
export function artifactMimeType(artifact: Part): string | undefined {
  return artifact.inlineData?.mimeType ?? artifact.fileData?.mimeType;
}
