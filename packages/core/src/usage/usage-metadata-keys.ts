/**
 * `customMetadata` keys agentkit writes. `agentkit:usage` is on every final-response event of
 * an invocation: `{ invocation, session }` rollups as of that event (see `UsageRollup`).
 * `agentkit:model` is the name of the model that answered (set by `FallbackModel` and read by
 * the usage rollups); `agentkit:failover` lists the models skipped before it (`{ model, code }`).
 */
export const USAGE_METADATA_KEY = "agentkit:usage";
export const MODEL_METADATA_KEY = "agentkit:model";
export const FAILOVER_METADATA_KEY = "agentkit:failover";
