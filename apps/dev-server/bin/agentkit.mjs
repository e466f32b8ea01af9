#!/usr/bin/env node
// Runs the CLI with tsx's loader so agents written in TypeScript load as they are, with the
// workspace packages' sources (the @agentkit/source export condition). One child process:
// Node needs --conditions at start-up, so it cannot be set from here.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const tsxLoader = import.meta.resolve("tsx");
const cli = fileURLToPath(new URL("../src/cli.ts", import.meta.url));
const child = spawn(process.execPath, ["--conditions=@agentkit/source", "--import", tsxLoader, cli, ...process.argv.slice(2)], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
