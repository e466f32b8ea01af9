import { afterEach, beforeEach } from "@jest/globals";
import { useContractSubject as useSubject, type ContractContext, type ContractFactory } from "@agentkit/core/testing";

export type { ContractContext, ContractFactory, ContractSubject } from "@agentkit/core/testing";

/** Creates and cleans up the subject of each jest test (see `@agentkit/core/testing`). */
export function useContractSubject<S extends { close(): Promise<void> }>(
  factory: ContractFactory<S>,
): ContractContext<S> {
  return useSubject(factory, { beforeEach, afterEach });
}
