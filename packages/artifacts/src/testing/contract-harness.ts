import { randomUUID } from "node:crypto";
import { afterEach, beforeEach } from "@jest/globals";

/** What a backend hands a contract suite: a fresh service, and how to tear it down. */
export interface ContractSubject<S> {
  service: S;
  /** Closes connections and removes what the test stored (called after every test). */
  cleanup?: () => Promise<void>;
}

/** Creates the service under test; called once per test. */
export type ContractFactory<S> = () => Promise<ContractSubject<S>>;

/** The service of the running test, plus a unique app name so backends may share a store. */
export interface ContractContext<S> {
  readonly service: S;
  readonly appName: string;
}

/** Registers beforeEach/afterEach hooks that create and clean up a subject per test. */
export function useContractSubject<S extends { close(): Promise<void> }>(factory: ContractFactory<S>): ContractContext<S> {
  let subject: ContractSubject<S> | undefined;
  let appName = "";
  beforeEach(async () => {
    subject = await factory();
    appName = `contract-app-${randomUUID()}`;
  });
  afterEach(async () => {
    const current = subject;
    subject = undefined;
    if (!current) return;
    if (current.cleanup) await current.cleanup();
    else await current.service.close();
  });
  return {
    get service(): S {
      if (!subject) throw new Error("The contract subject is only available inside a test.");
      return subject.service;
    },
    get appName(): string {
      return appName;
    },
  };
}
