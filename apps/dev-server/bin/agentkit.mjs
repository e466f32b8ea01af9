#!/usr/bin/env node
// The `agentkit` command. Runs the CLI in this one process (no child Node process just to pass
// flags). Two runtimes:
//   default: the workspace packages' TypeScript sources (the @agentkit/source export condition,
//            added by a resolve hook) compiled by tsx, registered in-process; agents may use
//            any TypeScript tsx accepts.
//   AGENTKIT_RUNTIME=dist: the built output of the packages and of this CLI (`pnpm build`),
//            loaded with no module hooks at all (the fast start of an installed agentkit);
//            agents' TypeScript goes through Node's own type stripping, so agents must use
//            erasable TypeScript only (no enums, namespaces or parameter properties).
// AGENTKIT_STARTUP_TIMING=1 prints where start-up time goes to stderr.
import { existsSync } from "node:fs";
import { enableCompileCache, registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

// V8's code cache for every module this process compiles (kept in the OS temp dir, or
// NODE_COMPILE_CACHE): later starts skip parsing and compiling most of the ~470 modules.
enableCompileCache();
const runtime = process.env.AGENTKIT_RUNTIME || "source";
if (runtime !== "source" && runtime !== "dist") {
  process.stderr.write(`agentkit: AGENTKIT_RUNTIME must be "source" or "dist", got "${runtime}".\n`);
  process.exit(2);
}
let main;
if (runtime === "dist") {
  const built = ["../dist/main.js", "../../../packages/core/dist/index.js", "../../../packages/server/dist/index.js"];
  if (!built.every((path) => existsSync(fileURLToPath(new URL(path, import.meta.url))))) {
    process.stderr.write("agentkit: AGENTKIT_RUNTIME=dist needs the built packages; run `pnpm build` first.\n");
    process.exit(2);
  }
  performance.mark("agentkit:hooks", { detail: runtime });
  // No module hook here: the agent loader adds its own (a missing `./x.js` → `./x.ts`) for agents.
  ({ main } = await import(new URL("../dist/main.js", import.meta.url).href));
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
process.exitCode = await main(process.argv.slice(2));
