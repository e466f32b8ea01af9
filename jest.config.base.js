// Shared jest setup: ts-jest in ESM mode, tests run against workspace *sources*
// through the `@agentkit/source` export condition (no build needed).
import { availableParallelism } from "node:os";

/**
 * Test files run at once in one package. `pnpm test` runs AGENTKIT_TEST_CONCURRENCY packages at a
 * time (2, scripts/run-tests.sh), so each gets its share of the cores: one on a 2-core machine,
 * where running files one after the other in the jest process itself is fastest for CPU-bound
 * suites. Suites that mostly wait (on servers, child processes, a browser) ask for `waiting`: two
 * files per core share, so one file's waits overlap another's work (docs/architecture.md, Testing).
 */
function workers(waiting) {
  const concurrency = Math.max(1, Number(process.env.AGENTKIT_TEST_CONCURRENCY) || 2);
  const share = Math.max(1, Math.floor(availableParallelism() / concurrency));
  return waiting ? share * 2 : share;
}

/** @param {string} pkgDir @param {{ waiting?: boolean }} [options] */
export default function config(pkgDir, options = {}) {
  return {
    rootDir: pkgDir,
    testEnvironment: "node",
    testEnvironmentOptions: { customExportConditions: ["@agentkit/source", "node", "node-addons"] },
    extensionsToTreatAsEsm: [".ts"],
    moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
    transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "<rootDir>/tsconfig.test.json" }] },
    testMatch: ["<rootDir>/test/**/*.test.ts"],
    maxWorkers: workers(options.waiting ?? false),
    // Only a hang detector: no test waits on a clock, so a slow (loaded) machine must never fail
    // one. A contract suite's 1000-event history takes ~3 s alone and went past 20 s under load.
    testTimeout: 120_000,
  };
}
