// The contract suites' shared types, from `@agentkit/core/testing` (framework-neutral).
export type {
  ContractContext,
  ContractFactory,
  ContractSubject,
  ContractTestApi,
} from "@agentkit/core/testing";
