// The dependency rule of docs/architecture.md, as a check the tests run.
//  1. @agentkit/core depends on nothing of ours and, at run time, only on CORE_RUNTIME_DEPS.
//  2. Every other library package depends (of ours) only on what ALLOWED_INTERNAL allows
//     (by default @agentkit/core): the server sees core interfaces, never a backend.
//  3. A vendor SDK is imported only inside its own folder (VENDOR_ZONES).
//  4. Every bare import in src/ is declared in package.json; relative imports stay inside the package.
//  5. Every library package is "sideEffects": false.
// Only apps/* (composition roots), examples/* and bench/ may depend on concrete backends freely.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative, resolve, sep } from "node:path";

export const CORE_RUNTIME_DEPS = ["zod"];

/** Internal packages each library package may depend on (default: core only). */
export const ALLOWED_INTERNAL = {
  "@agentkit/core": [],
  "@agentkit/dev-ui": [],
};

/** Private test helpers any package may list in devDependencies (never a runtime dependency). */
export const TEST_ONLY_PACKAGES = ["@agentkit/test-support"];

/**
 * Backends a library package may list in devDependencies, for tests against real stores (the
 * server's fuzz test runs on SQLite sessions and file artifacts; its eval judges are tested
 * through the real model adapters against their fake provider servers). Its src/ still may not import them.
 */
export const TEST_BACKENDS = {
  "@agentkit/server": ["@agentkit/sessions", "@agentkit/artifacts", "@agentkit/models"],
};

/** Vendor SDKs confined to one folder of one package. */
export const VENDOR_ZONES = {
  "@agentkit/models": {
    "@google/genai": "src/gemini/",
    openai: "src/openai/",
    "@anthropic-ai/sdk": "src/anthropic/",
    "@langchain/core": "src/langchain/",
    ai: "src/ai-sdk/",
    "@ai-sdk/provider": "src/ai-sdk/",
  },
  "@agentkit/sessions": {
    "node:sqlite": "src/sqlite/",
    mongodb: "src/mongodb/",
    pg: "src/postgres/",
  },
  "@agentkit/plugins": {
    "@google-cloud/bigquery": "src/analytics/bigquery/",
    pg: "src/analytics/postgres/",
  },
  "@agentkit/tools": {
    "playwright-core": "src/computer-use/",
    "google-auth-library": "src/openapi/",
    pg: "src/retrieval/postgres/",
  },
  "@agentkit/server": {
    jose: "src/auth/",
    // The OTLP export: only in @agentkit/server/otel, which a server without --otel never loads.
    "@opentelemetry/exporter-trace-otlp-http": "src/otel/",
    "@opentelemetry/exporter-metrics-otlp-http": "src/otel/",
    "@opentelemetry/exporter-logs-otlp-http": "src/otel/",
    "@opentelemetry/sdk-metrics": "src/otel/",
    "@opentelemetry/sdk-logs": "src/otel/",
  },
  "@agentkit/artifacts": {
    "@aws-sdk/client-s3": "src/s3/",
    "@aws-sdk/lib-storage": "src/s3/",
  },
};

const BUILTINS = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

function readJson(file) {
  return JSON.parse(readFileSync(file, "utf8"));
}

function listSourceFiles(dir) {
  if (!existsSync(dir)) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listSourceFiles(p));
    else if (/\.(ts|tsx|mts|js|mjs)$/.test(name) && !/\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** Module specifiers a source file imports (static, dynamic, re-exports, side-effect imports). */
export function importsOf(source) {
  const specs = new Set();
  const patterns = [
    /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?[^'"`;]*?\sfrom\s*['"]([^'"]+)['"]/g,
    /(?:^|[\s;])import\s*['"]([^'"]+)['"]/g,
    /import\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:])\/\/.*$/gm, "$1");
  for (const re of patterns) for (const m of code.matchAll(re)) specs.add(m[1]);
  return [...specs];
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`). */
export function packageOf(spec) {
  if (spec.startsWith("node:")) return spec;
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

function workspacePackages(root) {
  const found = [];
  for (const group of ["packages", "apps", "examples"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) {
      const dir = join(base, name);
      if (existsSync(join(dir, "package.json"))) found.push({ dir, group });
    }
  }
  if (existsSync(join(root, "bench", "package.json"))) found.push({ dir: join(root, "bench"), group: "bench" });
  if (existsSync(join(root, "test-support", "package.json")))
    found.push({ dir: join(root, "test-support"), group: "test-support" });
  return found;
}

/** Checks the tree at `root`; returns human-readable violations (empty when the rule holds). */
export function checkDependencyRule(root) {
  const violations = [];
  for (const { dir, group } of workspacePackages(root)) {
    const pkg = readJson(join(dir, "package.json"));
    const name = pkg.name;
    const where = relative(root, dir) || ".";
    const runtime = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies };
    const declared = new Set([...Object.keys(runtime), ...Object.keys(pkg.devDependencies ?? {})]);
    const isLibrary = group === "packages";

    if (isLibrary && pkg.sideEffects !== false)
      violations.push(`${where}: package.json must declare "sideEffects": false`);

    if (isLibrary) {
      const allowed = ALLOWED_INTERNAL[name] ?? ["@agentkit/core"];
      for (const dep of Object.keys(runtime)) {
        if (TEST_ONLY_PACKAGES.includes(dep))
          violations.push(`${where}: ${dep} is for tests only: list it in devDependencies`);
      }
      const all = { ...runtime, ...pkg.devDependencies };
      for (const dep of Object.keys(all)) {
        if (
          dep.startsWith("@agentkit/") &&
          dep !== name &&
          !allowed.includes(dep) &&
          !(TEST_ONLY_PACKAGES.includes(dep) && dep in (pkg.devDependencies ?? {})) &&
          !((TEST_BACKENDS[name] ?? []).includes(dep) && dep in (pkg.devDependencies ?? {}) && !(dep in runtime))
        ) {
          violations.push(
            `${where}: ${name} must not depend on ${dep} (allowed of ours: ${allowed.join(", ") || "none"})`,
          );
        }
      }
      if (name === "@agentkit/core") {
        for (const dep of Object.keys(pkg.dependencies ?? {})) {
          if (!CORE_RUNTIME_DEPS.includes(dep))
            violations.push(
              `${where}: @agentkit/core must not depend on ${dep} at run time ` +
                `(allowed: ${CORE_RUNTIME_DEPS.join(", ")})`,
            );
        }
      }
    }

    const zones = VENDOR_ZONES[name] ?? {};
    for (const file of listSourceFiles(join(dir, "src"))) {
      const relFile = relative(dir, file).split(sep).join("/");
      for (const spec of importsOf(readFileSync(file, "utf8"))) {
        if (spec.startsWith(".")) {
          const target = resolve(join(file, ".."), spec);
          if (target !== dir && !target.startsWith(dir + sep))
            violations.push(`${where}/${relFile}: relative import "${spec}" leaves the package`);
          continue;
        }
        const zone = zones[spec] ?? zones[packageOf(spec)];
        if (zone && !relFile.startsWith(zone))
          violations.push(`${where}/${relFile}: "${spec}" may only be imported under ${zone}`);
        if (BUILTINS.has(spec) || BUILTINS.has(packageOf(spec))) continue;
        const target = packageOf(spec);
        if (target === name) continue;
        if (!declared.has(target))
          violations.push(`${where}/${relFile}: imports "${spec}" but ${name} does not declare ${target}`);
        else if (
          isLibrary &&
          target.startsWith("@agentkit/") &&
          !(ALLOWED_INTERNAL[name] ?? ["@agentkit/core"]).includes(target)
        ) {
          violations.push(`${where}/${relFile}: ${name} must not import ${target}`);
        }
      }
    }
  }
  return violations;
}
