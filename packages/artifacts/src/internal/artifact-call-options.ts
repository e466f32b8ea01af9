/** Per-call options the persistent backends accept on top of the core request shapes. */
export interface ArtifactCallOptions {
  /** Cancels the call; it rejects with `ArtifactStoreError` code `ARTIFACT_STORE_ABORTED`. */
  signal?: AbortSignal;
}
