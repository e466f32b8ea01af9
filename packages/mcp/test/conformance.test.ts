// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against our
// McpToolset (client mode) and createMcpHttpHandler (server mode). Client-mode scenario servers
// listen on all interfaces, so that mode runs inside a fresh network namespace (`unshare --net`).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { FunctionTool } from "@agentkit/core";
import { build } from "esbuild";
import { createMcpHttpHandler } from "../src/index.js";
import { packageDir, testDir } from "./helpers.js";

jest.setTimeout(300_000);

const conformanceBin = join(packageDir, "node_modules", ".bin", "conformance");
const env = {
  ...process.env,
  PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
  NO_COLOR: "1",
  FORCE_COLOR: "0",
};
const resultDirs: string[] = [];
afterAll(() => {
  for (const dir of resultDirs) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "agentkit-mcp-conformance-"));
  resultDirs.push(dir);
  return dir;
}

function unshareAvailable(): boolean {
  try {
    execFileSync("unshare", ["--net", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

function run(command: string, args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: packageDir, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Statuses of every check.json under `dir`, keyed by scenario directory (timestamp stripped). */
function checksByScenario(dir: string): Record<string, string[]> {
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

// The suites start the client once per scenario (about 35 times): bundled once from the sources
// (McpToolset, core, the SDK), it starts in a third of the time `--import tsx` takes.
let clientCommand = "";
beforeAll(async () => {
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
  clientCommand = `${process.execPath} ${outfile}`;
});
const NON_AUTH_CLIENT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];
// The auth scenarios of the auth, backcompat, draft and extensions suites, less the baselined one.
const AUTH_CLIENT_SCENARIOS = [
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
];
const hasUnshare = unshareAvailable();
const itWithUnshare = hasUnshare ? it : it.skip;
if (!hasUnshare)
  console.warn("conformance client mode skipped: `unshare --net` is unavailable (needs root or user namespaces)");

describe("MCP conformance, client mode (McpToolset)", () => {
  itWithUnshare("passes every non-auth client scenario", async () => {
    const dir = tempDir();
    // One scenario at a time. The verdict comes from each check, not the tool's exit code: the
    // tool also fails a run on a warning, and sse-retry warns when the client reconnects later
    // than the server's `retry` (500 ms), which a loaded machine does. Reconnecting too early is
    // a FAILURE and still fails here; a late reconnect is the machine, not the client.
    const script = [
      "ip link set lo up",
      ...NON_AUTH_CLIENT_SCENARIOS.map(
        (s) =>
          `${shellQuote(conformanceBin)} client --command ${shellQuote(clientCommand)} --scenario ${s} -o ${shellQuote(dir)} || true`,
      ),
    ].join("\n");
    const { code } = await run("unshare", ["--net", "bash", "-c", script]);
    expect(code).toBe(0);
    const checks = checksByScenario(dir);
    expect(Object.keys(checks).sort()).toEqual([...NON_AUTH_CLIENT_SCENARIOS].sort());
    const lateRetryOnly = (status: string) => status.startsWith("client-sse-retry-timing:WARNING");
    for (const scenario of NON_AUTH_CLIENT_SCENARIOS) {
      const statuses = checks[scenario]!;
      expect({
        scenario,
        failures: statuses.filter((s) => !s.includes(":SUCCESS") && !lateRetryOnly(s)),
      }).toEqual({ scenario, failures: [] });
      expect(statuses.length).toBeGreaterThan(0);
    }
  });

  // Every auth scenario but the baselined one, one at a time: each runs a whole OAuth flow through
  // the agentkit runner (conformance-auth-client.ts), and fourteen at once on a small machine
  // outrun the suite's 30 s client timeout.
  itWithUnshare(
    "passes the auth client scenarios (authorization code per user, client credentials)",
    async () => {
      const dir = tempDir();
      const script = [
        "ip link set lo up",
        ...AUTH_CLIENT_SCENARIOS.map(
          (s) =>
            `${shellQuote(conformanceBin)} client --command ${shellQuote(clientCommand)} --scenario ${s} -o ${shellQuote(dir)} || echo "SCENARIO-FAILED ${s}"`,
        ),
      ].join("\n");
      const { code, output } = await run("unshare", ["--net", "bash", "-c", script]);
      expect(code).toBe(0);
      expect(output.match(/SCENARIO-FAILED \S+/g) ?? []).toEqual([]);
      const checks = checksByScenario(dir);
      const scenarioDirs = Object.keys(checks).map((s) => `auth/${s.replace(/^auth\//, "")}`);
      expect(scenarioDirs.sort()).toEqual([...AUTH_CLIENT_SCENARIOS].sort());
      for (const [scenario, statuses] of Object.entries(checks)) {
        expect({ scenario, failures: statuses.filter((s) => !s.includes(":SUCCESS")) }).toEqual({
          scenario,
          failures: [],
        });
        expect(statuses.length).toBeGreaterThan(0);
      }
    },
    600_000,
  );

  itWithUnshare("fails only the baselined auth scenario", async () => {
    const dir = tempDir();
    const baseline = join(testDir, "conformance", "client-baseline.yml");
    const script = [
      "ip link set lo up",
      // A suite exits non-zero on a failure missing from the baseline and on a baselined scenario that passes.
      `${shellQuote(conformanceBin)} client --command ${shellQuote(clientCommand)} --suite extensions --expected-failures ${shellQuote(baseline)} -o ${shellQuote(dir)} || echo "SUITE-FAILED extensions"`,
    ].join("\n");
    const { code, output } = await run("unshare", ["--net", "bash", "-c", script]);
    expect(code).toBe(0);
    expect(output.match(/SUITE-FAILED \S+/g) ?? []).toEqual([]);
    const baselined = readFileSync(baseline, "utf8")
      .match(/^\s+- (\S+)/gm)!
      .map((l) => l.trim().slice(2));
    const ran = Object.keys(checksByScenario(dir));
    // Every baselined scenario really ran (the baseline lists nothing stale or misspelt).
    for (const scenario of baselined) expect(ran).toContain(scenario);
  });
});

describe("MCP conformance, server mode (createMcpHttpHandler)", () => {
  it("passes the server scenarios that apply to a tools server", async () => {
    const handler = createMcpHttpHandler({
      name: "agentkit-conformance",
      tools: [
        new FunctionTool({
          name: "test_simple_text",
          description: "Returns a fixed text.",
          execute: () => "This is a simple text response for testing.",
        }),
      ],
    });
    const http: HttpServer = await new Promise((resolve) => {
      const s = handler.app.listen(0, "127.0.0.1", () => resolve(s));
    });
    try {
      const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
      const scenarios = [
        "server-initialize",
        "tools-list",
        "tools-call-simple-text",
        "ping",
        "dns-rebinding-protection",
      ];
      for (const scenario of scenarios) {
        const dir = tempDir();
        const { code, output } = await run(conformanceBin, ["server", "--url", url, "--scenario", scenario, "-o", dir]);
        const checks = Object.values(checksByScenario(dir)).flat();
        expect({ scenario, code, failures: checks.filter((c) => !c.includes(":SUCCESS")) }).toEqual({
          scenario,
          code: 0,
          failures: [],
        });
        expect({ scenario, checks: checks.length, output: checks.length > 0 ? "" : output }).toEqual({
          scenario,
          checks: expect.any(Number),
          output: "",
        });
      }
    } finally {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((r) => http.close(() => r()));
    }
  });
});
