#!/usr/bin/env node
// The `agentkit` command (run under tsx in this workspace: `pnpm agentkit …`, or bin/agentkit.mjs).
import { main } from "./main.js";

process.exitCode = await main(process.argv.slice(2));
