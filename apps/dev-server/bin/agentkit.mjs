#!/usr/bin/env node
// Runs the CLI in this process with tsx's loader, so agents written in TypeScript load as they
// are, and with the workspace packages' sources (the @agentkit/source export condition, added
// by a resolve hook: no second Node process just to pass --conditions, which halves start-up).
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    const conditions = context.conditions.includes("@agentkit/source") ? context.conditions : [...context.conditions, "@agentkit/source"];
    return nextResolve(specifier, { ...context, conditions });
  },
});
const { register } = await import("tsx/esm/api");
register();
await import(new URL("../src/cli.ts", import.meta.url).href);
