// The contract suite for artifact backends. It takes the test functions of the framework that
// runs it (jest, vitest, node:test + assertExpect) and depends on none.
export { runArtifactServiceContract } from "./artifact-service-contract.js";
export { assertExpect } from "@agentkit/core/testing";
export type { ContractFactory, ContractSubject, ContractTestApi } from "./contract-harness.js";
