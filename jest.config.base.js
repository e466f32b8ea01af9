// Shared jest setup: ts-jest in ESM mode, tests run against workspace *sources*
// through the `@agentkit/source` export condition (no build needed).
export default function config(pkgDir) {
  return {
    rootDir: pkgDir,
    testEnvironment: "node",
    testEnvironmentOptions: { customExportConditions: ["@agentkit/source", "node", "node-addons"] },
    extensionsToTreatAsEsm: [".ts"],
    moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
    transform: { "^.+\\.ts$": ["ts-jest", { useESM: true, tsconfig: "<rootDir>/tsconfig.test.json" }] },
    testMatch: ["<rootDir>/test/**/*.test.ts"],
    testTimeout: 20000,
  };
}
