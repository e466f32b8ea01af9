// A package's build step after `tsc`: replaces the one-module-per-source-file JavaScript in
// dist/ with a bundle per package entry (its package.json exports, or the files given as
// arguments), code shared by entries or loaded by `import()` split into dist/chunks/. Node's cost
// at start-up is per module (resolve, read, compile-cache lookup, link), so `agentkit
// api-server` on the built packages loads ~20 of our modules instead of ~300 (bench/README.md).
// What stays as it was: the declarations (`.d.ts`, tsc's), every import of another package
// (dependencies and the other @agentkit packages stay external, so an agent that imports
// @agentkit/core shares the CLI's copy), module evaluation order, and source maps (esbuild reads
// tsc's maps, so a bundle's map points into src/).
// Usage, in a package folder: node ../../scripts/bundle-dist.mjs [dist/entry.js ...]
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { build } from "esbuild";
import { keepClassNames, PACKAGE_BUNDLE_OPTIONS } from "../apps/dev-server/src/package-bundle.ts";

const DIST = "dist";
const STAGING = "dist.bundle";

const entries = process.argv.length > 2 ? process.argv.slice(2) : entriesOfExports();
const missing = entries.filter((entry) => !existsSync(entry));
if (entries.length === 0 || missing.length > 0) {
  process.stderr.write(`bundle-dist: no entry to bundle, or missing: ${missing.join(", ")} (run tsc first)\n`);
  process.exit(1);
}

rmSync(STAGING, { recursive: true, force: true });
const result = await build({
  entryPoints: entries,
  outbase: DIST,
  outdir: STAGING,
  ...PACKAGE_BUNDLE_OPTIONS,
  logLevel: "warning",
});
const problems = keepClassNames(result.metafile);
if (problems.length > 0) {
  process.stderr.write(`bundle-dist: class names the bundle would change:\n  ${problems.join("\n  ")}\n`);
  rmSync(STAGING, { recursive: true, force: true });
  process.exit(1);
}

// Only now that the bundle exists: tsc's per-file JavaScript (and an earlier bundle) goes.
for (const file of walk(DIST)) if (/\.js(\.map)?$/.test(file)) rmSync(file);
rmSync(join(DIST, "chunks"), { recursive: true, force: true });
for (const file of walk(STAGING)) {
  const target = join(DIST, relative(STAGING, file));
  mkdirSync(dirname(target), { recursive: true });
  renameSync(file, target);
}
rmSync(STAGING, { recursive: true, force: true });

/** The JavaScript files the package.json `exports` point at (any condition but types). */
function entriesOfExports() {
  const pkg = JSON.parse(readFileSync("package.json", "utf8"));
  const found = new Set();
  const visit = (value, key) => {
    if (typeof value === "string") {
      if (key !== "types" && value.startsWith(`./${DIST}/`) && value.endsWith(".js")) found.add(value.slice(2));
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) visit(v, k);
    }
  };
  visit(pkg.exports, "");
  return [...found];
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}
