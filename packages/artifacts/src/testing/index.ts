// Contract test suite for artifact backends (import from `@agentkit/artifacts/testing` inside a
// jest test file; it defines describe/it blocks with @jest/globals).
export { runArtifactServiceContract } from "./artifact-service-contract.js";
export type { ContractFactory, ContractSubject } from "./contract-harness.js";
