// Contract test suites for session and memory backends (import from `@agentkit/sessions/testing`
// inside a jest test file; they define describe/it blocks with @jest/globals).
export { runSessionServiceContract } from "./session-service-contract.js";
export { runMemoryServiceContract } from "./memory-service-contract.js";
export { createFullEvent } from "./full-event.js";
export type { ContractFactory, ContractSubject } from "./contract-harness.js";
export type { SessionContractOptions } from "./session-append-contract.js";
