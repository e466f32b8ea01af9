// The official MCP conformance suite's auth scenarios against McpToolset (client mode; see
// conformance-client.test.ts), inside a fresh network namespace (`unshare --net`).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
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

afterAll(removeTempDirs);
let clientCommand = "";
beforeAll(async () => {
  clientCommand = await bundleClient();
});
const hasUnshare = unshareAvailable();
const itWithUnshare = hasUnshare ? it : it.skip;
if (!hasUnshare)
  console.warn("conformance client mode skipped: `unshare --net` is unavailable (needs root or user namespaces)");

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

describe("MCP conformance, client mode auth (McpToolset)", () => {
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
});
