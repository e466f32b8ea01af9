// The official MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) against our
// McpToolset, client mode: the non-auth scenarios and the baseline (the auth scenarios are in
// conformance-client-auth.test.ts, server mode in conformance-server.test.ts). Client-mode
// scenario servers listen on all interfaces, so they run inside a fresh network namespace
// (`unshare --net`).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, jest } from "@jest/globals";
import { testDir } from "./helpers.js";
import {
  bundleClient,
  checksByScenario,
  conformanceBin,
  removeTempDirs,
  run,
  shellQuote,
  tempDir,
  unshareAvailable,
} from "./conformance/conformance-harness.js";

// Many runs of the tool one after the other: a longer hang detector than the default.
jest.setTimeout(300_000);
afterAll(removeTempDirs);
let clientCommand = "";
beforeAll(async () => {
  clientCommand = await bundleClient();
});
const hasUnshare = unshareAvailable();
const itWithUnshare = hasUnshare ? it : it.skip;
if (!hasUnshare)
  console.warn("conformance client mode skipped: `unshare --net` is unavailable (needs root or user namespaces)");

const NON_AUTH_CLIENT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"];

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
