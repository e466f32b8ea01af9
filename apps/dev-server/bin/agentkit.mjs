#!/usr/bin/env node
// The `agentkit` command. Runs the CLI in this one process (no child Node process just to pass
// flags). Three runtimes:
//   source (default): the workspace packages' TypeScript sources (the @agentkit/source export
//            condition) on Node's own TypeScript support, through in-thread module hooks that
//            also transform what Node cannot strip (enums, parameter properties) and cache the
//            output on disk (src/register-source-hooks.ts). Agents' ES module TypeScript goes
//            the same way; `.tsx`, decorators and tsconfig paths need tsx. A warm server bundles
//            the workspace's sources for the next start, which loads the bundles while the
//            sources are unchanged (src/source-bundles.ts; AGENTKIT_SOURCE_BUNDLES=0: never).
//   tsx: the same sources compiled by tsx, registered in-process: any TypeScript tsx accepts,
//            at about 0.2 s more per start (tsx's own start and its off-thread hooks).
//   dist: the built output of the packages and of this CLI (`pnpm build`: one bundle per
//            package entry), loaded by Node with only a resolve hook that skips Node's resolution
//            where its answer is known (the fast start of an installed agentkit); agents' TypeScript
//            goes through Node's own type stripping, so agents must use erasable TypeScript
//            only (no enums, namespaces or parameter properties).
// AGENTKIT_STARTUP_TIMING=1 prints where start-up time goes to stderr.
import { existsSync } from "node:fs";
import { enableCompileCache, getCompileCacheDir, registerHooks } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// V8's code cache for every module this process compiles (kept in the OS temp dir, or
// NODE_COMPILE_CACHE): later starts skip parsing and compiling most of the ~630 modules.
enableCompileCache();
const runtime = process.env.AGENTKIT_RUNTIME || "source";
if (runtime !== "source" && runtime !== "tsx" && runtime !== "dist") {
  process.stderr.write(`agentkit: AGENTKIT_RUNTIME must be "source", "tsx" or "dist", got "${runtime}".\n`);
  process.exit(2);
}
let main;
/** Runs once a server command's warm-up has ended (main's third argument). */
let afterWarmUp;
/** Stops a bundle build still running when the command ends. */
const stopBuild = new AbortController();
if (runtime === "dist") {
  const built = [
    "../dist/main.js",
    "../dist/register-source-hooks.js",
    "../../../packages/core/dist/index.js",
    "../../../packages/server/dist/index.js",
  ];
  if (!built.every((path) => existsSync(fileURLToPath(new URL(path, import.meta.url))))) {
    process.stderr.write("agentkit: AGENTKIT_RUNTIME=dist needs the built packages; run `pnpm build` first.\n");
    process.exit(2);
  }
  // Resolution shortcuts only (src/register-source-hooks.ts, registerDistHooks); the agent loader
  // adds its own hook (a missing `./x.js` → `./x.ts`) for agents.
  const { registerDistHooks } = await import(new URL("../dist/register-source-hooks.js", import.meta.url).href);
  const workspace = new URL("../../../", import.meta.url).href;
  registerDistHooks({ linkFreeRoots: [`${workspace}packages/`, `${workspace}apps/`] });
  performance.mark("agentkit:hooks", { detail: runtime });
  ({ main } = await import(new URL("../dist/main.js", import.meta.url).href));
} else if (runtime === "source") {
  // These two files Node strips itself (their output is in the compile cache after the first start).
  const { registerSourceHooks } = await import(new URL("../src/register-source-hooks.ts", import.meta.url).href);
  const compileCache = getCompileCacheDir();
  const workspace = new URL("../../../", import.meta.url).href;
  // The workspace's packages bundled by an earlier warm server, while their sources are unchanged
  // (src/source-bundles.ts, also stripped by Node itself); AGENTKIT_SOURCE_BUNDLES=0 always
  // loads the sources.
  const bundleOptions =
    compileCache !== undefined && process.env.AGENTKIT_SOURCE_BUNDLES !== "0"
      ? { workspace: fileURLToPath(workspace), cacheDir: join(compileCache, "agentkit-bundles") }
      : undefined;
  const sourceBundles = bundleOptions && (await import(new URL("../src/source-bundles.ts", import.meta.url).href));
  const bundles = sourceBundles?.findSourceBundles(bundleOptions);
  registerSourceHooks({
    cacheDir: compileCache === undefined ? undefined : join(compileCache, "agentkit-source"),
    linkFreeRoots: [`${workspace}packages/`, `${workspace}apps/`],
  });
  if (bundles) sourceBundles.registerSourceBundleHooks(bundles);
  else if (sourceBundles) afterWarmUp = () => buildBundlesInBackground(sourceBundles, bundleOptions);
  performance.mark("agentkit:hooks", { detail: bundles ? "source, bundled" : runtime });
  ({ main } = await import(bundles ? bundles.main : new URL("../src/main.ts", import.meta.url).href));
} else {
  // The two big plain-JavaScript dependencies (zod: ~95 files, express: ~60 CommonJS ones) load
  // before any hook exists, so none of their files goes through tsx's hooks (~230 ms). Same
  // versions as the packages use, so they are the very module instances the packages get.
  // (Not for `help` and `version`, which load neither.)
  if (!["help", "--help", "-h", "version", "--version", undefined].includes(process.argv[2]))
    await Promise.all([import("zod"), import("express")]);
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const conditions = context.conditions.includes("@agentkit/source")
        ? context.conditions
        : [...context.conditions, "@agentkit/source"];
      return nextResolve(specifier, { ...context, conditions });
    },
  });
  const { register } = await import("tsx/esm/api");
  register();
  // Read by main.ts for AGENTKIT_STARTUP_TIMING.
  performance.mark("agentkit:hooks", { detail: runtime });
  ({ main } = await import(new URL("../src/main.ts", import.meta.url).href));
}
process.exitCode = await main(process.argv.slice(2), undefined, { afterWarmUp });
stopBuild.abort();

/** Bundles the sources for the next start, after this server is warm (its log says how it went). */
function buildBundlesInBackground(sourceBundles, options) {
  sourceBundles.buildSourceBundles({ ...options, signal: stopBuild.signal }).then(
    (result) => {
      if (result.built)
        process.stdout.write(`agentkit: bundled the workspace's sources for the next start in ${result.ms} ms\n`);
      else if (result.reason === "unbundleable")
        process.stderr.write(`agentkit: the sources stay unbundled: ${result.detail}\n`);
    },
    (error) => process.stderr.write(`agentkit: bundling the sources failed: ${error?.message ?? error}\n`),
  );
}
