#!/usr/bin/env node
// Sums the jest results every workspace package wrote (.jest-results.json) and prints the
// one closing line CI reads: "N passed, N failed, N skipped". Exits non-zero on a failed
// test, a suite that failed to run, a package whose tests did not report, or zero tests.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const groups = ["packages", "apps", "examples"];
const singles = ["bench", "scripts", "test-support"];

function packageDirs() {
  const dirs = [];
  for (const g of groups) {
    const base = join(root, g);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const dir = join(base, name);
      if (statSync(dir).isDirectory() && existsSync(join(dir, "package.json"))) dirs.push(dir);
    }
  }
  for (const s of singles) if (existsSync(join(root, s, "package.json"))) dirs.push(join(root, s));
  return dirs;
}

let passed = 0,
  failed = 0,
  skipped = 0;
const problems = [];
for (const dir of packageDirs()) {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  if (!pkg.scripts?.test) continue;
  const file = join(dir, ".jest-results.json");
  if (!existsSync(file)) {
    problems.push(`${pkg.name}: no test results (.jest-results.json missing: its test task did not run to the end)`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests;
  failed += r.numFailedTests + r.numRuntimeErrorTestSuites;
  skipped += r.numPendingTests + r.numTodoTests;
  if (r.numRuntimeErrorTestSuites > 0)
    problems.push(`${pkg.name}: ${r.numRuntimeErrorTestSuites} test file(s) failed to run`);
  if (r.numFailedTests > 0) problems.push(`${pkg.name}: ${r.numFailedTests} test(s) failed`);
}
for (const p of problems) console.error(`test-summary: ${p}`);
if (passed + failed === 0) console.error("test-summary: zero tests ran");
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
