#!/usr/bin/env node
// The `agentkit` command. Runs the CLI in this one process (no child Node process just to pass
// flags). Two runtimes:
//   default: the workspace packages' TypeScript sources (the @agentkit/source export condition,
//            added by a resolve hook) compiled by tsx, registered in-process; agents may use
//            any TypeScript tsx accepts.
//   AGENTKIT_RUNTIME=dist: the packages' built output (`pnpm build`) and Node's own type
//            stripping for this CLI's sources and for agents (no tsx: faster start; agents must
//            use erasable TypeScript only: no enums, namespaces or parameter properties).
// AGENTKIT_STARTUP_TIMING=1 prints where start-up time goes to stderr.
import { existsSync } from "node:fs";
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const runtime = process.env.AGENTKIT_RUNTIME || "source";
if (runtime !== "source" && runtime !== "dist") {
  process.stderr.write(`agentkit: AGENTKIT_RUNTIME must be "source" or "dist", got "${runtime}".\n`);
  process.exit(2);
}
if (runtime === "dist") {
  const builtCore = new URL("../../../packages/core/dist/index.js", import.meta.url);
  if (!existsSync(fileURLToPath(builtCore))) {
    process.stderr.write("agentkit: AGENTKIT_RUNTIME=dist needs the built packages; run `pnpm build` first.\n");
    process.exit(2);
  }
  // This CLI's sources import siblings as `./x.js` (what tsc emits); Node's type stripping
  // does not map that to `./x.ts`, so fall back to the .ts file when the .js one is missing.
  registerHooks({
    resolve(specifier, context, nextResolve) {
      try {
        return nextResolve(specifier, context);
      } catch (error) {
        const parent = context.parentURL;
        if (error?.code !== "ERR_MODULE_NOT_FOUND" || !/^\.\.?\/.*\.js$/.test(specifier) || !parent?.startsWith("file:") || parent.includes("/node_modules/")) throw error;
        const candidate = new URL(`${specifier.slice(0, -3)}.ts`, parent);
        if (!existsSync(fileURLToPath(candidate))) throw error;
        return nextResolve(candidate.href, context);
      }
    },
  });
} else {
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const conditions = context.conditions.includes("@agentkit/source") ? context.conditions : [...context.conditions, "@agentkit/source"];
      return nextResolve(specifier, { ...context, conditions });
    },
  });
  const { register } = await import("tsx/esm/api");
  register();
}
// Read by main.ts for AGENTKIT_STARTUP_TIMING.
performance.mark("agentkit:hooks", { detail: runtime });
await import(new URL("../src/cli.ts", import.meta.url).href);
