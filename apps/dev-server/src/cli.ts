#!/usr/bin/env node
// The `agentkit` command through tsx (the package's `agentkit` script); bin/agentkit.mjs runs
// main.ts itself.
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2));
