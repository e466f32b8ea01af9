// Public API of @agentkit/artifacts. The in-memory service lives in core (so core's own tests
// and users need no extra package) and is re-exported here next to the persistent backends.
export { InMemoryArtifactService } from "@agentkit/core";
export { FileArtifactService, type FileArtifactServiceOptions } from "./file/file-artifact-service.js";
export {
  ArtifactStoreError,
  ArtifactStoreErrorCode,
  InvalidArtifactNameError,
  InvalidArtifactScopeError,
  InvalidArtifactUriError,
} from "./errors/artifact-errors.js";
export type { ArtifactCallOptions } from "./internal/artifact-call-options.js";
