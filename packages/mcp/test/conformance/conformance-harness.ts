// Shared by the conformance test files (client mode, client mode auth, server mode): the
// official MCP conformance tool (@modelcontextprotocol/conformance 0.1.16), how to run it, how to
// read its checks, and the bundled client. In three files so each one's time shows, and jest runs
// them side by side where a package gets more than one worker (4 cores or more).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { build } from "esbuild";
import { packageDir, testDir } from "../helpers.js";

export const conformanceBin = join(packageDir, "node_modules", ".bin", "conformance");
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};
const resultDirs: string[] = [];
/** Removes every directory `tempDir` made (call from afterAll). */
export function removeTempDirs(): void {
  for (const dir of resultDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-mcp-conformance-"));
  resultDirs.push(dir);
  return dir;
}

export function unshareAvailable(): boolean {
  try {
    execFileSync("unshare", ["--net", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: packageDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Statuses of every check.json under `dir`, keyed by scenario directory (timestamp stripped). */
export function checksByScenario(dir: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const walk = (d: string, prefix: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (!statSync(path).isDirectory()) continue;
      if (readdirSync(path).includes("checks.json")) {
        const checks = JSON.parse(readFileSync(join(path, "checks.json"), "utf8")) as {
          id: string;
          status: string;
          errorMessage?: string;
        }[];
        const scenario = prefix + name.replace(/-\d{4}-\d\d-\d\dT.*$/, "");
        out[scenario] = checks
          .filter((c) => c.status === "SUCCESS" || c.status === "FAILURE" || c.status === "WARNING")
          .map((c) => `${c.id}:${c.status}${c.errorMessage ? ` (${c.errorMessage})` : ""}`);
      } else {
        walk(path, `${prefix}${name}/`);
      }
    }
  };
  walk(dir, "");
  return out;
}

/**
 * The client, bundled from the sources (McpToolset, core, the SDK) into a temp dir, as the
 * command the tool starts once per scenario: it starts in a third of the time `--import tsx` takes.
 */
export async function bundleClient(): Promise<string> {
  const outfile = join(tempDir(), "conformance-client.mjs");
  await build({
    entryPoints: [join(testDir, "conformance", "conformance-client.ts")],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node24",
    conditions: ["@agentkit/source"],
    // CommonJS dependencies inside an ES module bundle need a require.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
    logLevel: "error",
  });
  return `${process.execPath} ${outfile}`;
}
