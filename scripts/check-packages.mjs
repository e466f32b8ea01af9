#!/usr/bin/env node
// publint, attw and the packed-files check on every publishable package, as
// scripts/test/package-hygiene.test.ts runs them (build first: `pnpm build`). Exit 1 on a finding.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attwProblems, missingFromPack, packPackage, publintMessages, toolEnv } from "./lib/package-checks.mjs";
import { publishablePackages } from "./lib/workspace.mjs";

const repoRoot = join(import.meta.dirname, "..");
const env = toolEnv(repoRoot);
const out = mkdtempSync(join(tmpdir(), "agentkit-pack-"));
let findings = 0;
try {
  for (const { dir, pkg } of publishablePackages(repoRoot)) {
    const { tarball, files } = packPackage(dir, out, env);
    const problems = [
      ...(await publintMessages(tarball)).map((m) => `publint: ${m}`),
      ...attwProblems(tarball, env).map((p) => `attw: ${p}`),
      ...missingFromPack(dir, pkg, files).map((m) => `not packed: ${m}`),
    ];
    findings += problems.length;
    console.log(`${pkg.name}: ${problems.length === 0 ? "ok" : `${problems.length} finding(s)`}`);
    for (const p of problems) console.log(`  ${p}`);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(findings === 0 ? 0 : 1);
