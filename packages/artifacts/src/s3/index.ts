// Public API of @agentkit/artifacts/s3 (needs @aws-sdk/client-s3 and @aws-sdk/lib-storage).
export { S3ArtifactService } from "./s3-artifact-service.js";
export type { S3ArtifactServiceOptions, S3ArtifactServiceUriOptions } from "./s3-options.js";
