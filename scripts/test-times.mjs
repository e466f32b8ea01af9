#!/usr/bin/env node
// Where the test run's time went: each package's jest wall time (first file start to last file
// end) and its slowest files, read from the .jest-results.json files the last `pnpm test` left.
//   node scripts/test-times.mjs [--top 3]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const topArg = process.argv.indexOf("--top");
const top = topArg > 0 ? Number(process.argv[topArg + 1]) : 3;

function resultFiles() {
  const out = [];
  for (const group of ["packages", "apps", "examples"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) out.push(join(base, name, ".jest-results.json"));
  }
  for (const single of ["bench", "scripts", "test-support"]) out.push(join(root, single, ".jest-results.json"));
  return out.filter((file) => existsSync(file) && statSync(file).isFile());
}

const rows = [];
for (const file of resultFiles()) {
  const r = JSON.parse(readFileSync(file, "utf8"));
  const files = r.testResults.map((t) => ({
    name: relative(join(file, ".."), t.name),
    seconds: (t.endTime - t.startTime) / 1000,
  }));
  const end = Math.max(r.startTime, ...r.testResults.map((t) => t.endTime));
  rows.push({
    pkg: relative(root, join(file, "..")),
    wall: (end - r.startTime) / 1000,
    tests: r.numTotalTests,
    slowest: files.sort((a, b) => b.seconds - a.seconds).slice(0, top),
  });
}
rows.sort((a, b) => b.wall - a.wall);
console.log("| package | wall | tests | slowest files |\n| --- | ---: | ---: | --- |");
for (const row of rows)
  console.log(
    `| ${row.pkg} | ${Math.round(row.wall)} s | ${row.tests} | ${row.slowest.map((f) => `${f.name} ${Math.round(f.seconds)} s`).join(", ")} |`,
  );
