import { randomUUID } from "node:crypto";

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

/** The per-test hooks of the test framework in use (jest's, or node:test's). */
export interface TestHooks {
  beforeEach(fn: () => Promise<void>): void;
  afterEach(fn: () => Promise<void>): void;
}

/**
 * Registers hooks that create a subject before every test and clean it up after, for the
 * contract suites every service backend runs. Framework-neutral: pass the hooks in.
 */
export function useContractSubject<S extends { close(): Promise<void> }>(
  factory: ContractFactory<S>,
  hooks: TestHooks,
): ContractContext<S> {
  let subject: ContractSubject<S> | undefined;
  let appName = "";
  hooks.beforeEach(async () => {
    subject = await factory();
    appName = `contract-app-${randomUUID()}`;
  });
  hooks.afterEach(async () => {
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
