import type { Part } from "../content/content.js";
import { AgentKitError } from "../errors/agentkit-error.js";

/**
 * Rejects filenames no backend can store safely: empty names, NUL bytes and `..` path
 * segments (a file or S3 backend would otherwise escape its root). Throws `INVALID_ARTIFACT_NAME`.
 */
export function validateArtifactFilename(filename: string): void {
  if (typeof filename !== "string" || filename.length === 0) {
    throw new AgentKitError("INVALID_ARTIFACT_NAME", "An artifact filename must be a non-empty string.");
  }
  if (filename.includes("\0")) {
    throw new AgentKitError(
      "INVALID_ARTIFACT_NAME",
      `Artifact filename ${JSON.stringify(filename)} contains a NUL byte; remove it.`,
    );
  }
  // Checked without the `user:` prefix, which backends strip when they build a path or key.
  const bare = filename.startsWith("user:") ? filename.slice("user:".length) : filename;
  if (bare.length === 0) {
    throw new AgentKitError(
      "INVALID_ARTIFACT_NAME",
      `Artifact filename ${JSON.stringify(filename)} has nothing after "user:"; add a name.`,
    );
  }
  if (bare.split(/[/\\]/).some((segment) => segment === "..")) {
    throw new AgentKitError(
      "INVALID_ARTIFACT_NAME",
      `Artifact filename ${JSON.stringify(filename)} contains a ".." path segment; use a name without parent references.`,
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
