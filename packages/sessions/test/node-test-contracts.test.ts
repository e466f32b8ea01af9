import { describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { InMemoryMemoryService, InMemorySessionService } from "../src/index.js";
import { assertExpect, runMemoryServiceContract, runSessionServiceContract } from "../src/testing/index.js";

// The contract suites depend on no test framework: fixtures/node-test-contracts.ts runs them
// under `node --test` with node:assert (assertExpect). Importing @jest/globals there would throw.
const packageDir = fileURLToPath(new URL("..", import.meta.url));
const fixture = fileURLToPath(new URL("./fixtures/node-test-contracts.ts", import.meta.url));

function runNodeTest(env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=@agentkit/source", "--import", "tsx", "--test", "--test-reporter=tap", fixture],
      { cwd: packageDir, env: { ...process.env, ...env, NODE_OPTIONS: "" }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let output = "";
    child.stdout.on("data", (d: Buffer) => (output += d.toString()));
    child.stderr.on("data", (d: Buffer) => (output += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, output }));
  });
}

/** The `# tests N` / `# pass N` / `# fail N` totals of a TAP report. */
function totals(tap: string): Record<string, number> {
  return Object.fromEntries(
    [...tap.matchAll(/^# (tests|pass|fail|skipped|cancelled) (\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]),
  );
}

/** How many tests the fixture's suites register (counted without running them). */
function registeredTests(): number {
  let count = 0;
  const counting = {
    describe: (_: string, fn: () => void) => fn(),
    it: () => void count++,
    beforeEach: () => undefined,
    afterEach: () => undefined,
    expect: assertExpect,
  };
  runSessionServiceContract("count", async () => ({ service: new InMemorySessionService() }), counting);
  runMemoryServiceContract("count", async () => ({ service: new InMemoryMemoryService() }), counting);
  return count;
}

describe("the contract suites under node:test", () => {
  it("pass for the in-memory services, every test run, and fail for a broken service", async () => {
    const expected = registeredTests();
    expect(expected).toBeGreaterThan(30);
    const [good, broken] = await Promise.all([runNodeTest(), runNodeTest({ CONTRACT_SUBJECT: "forgetful" })]);

    expect({ code: good.code, ...totals(good.output) }).toEqual({
      code: 0,
      tests: expected,
      pass: expected,
      fail: 0,
      skipped: 0,
      cancelled: 0,
    });
    expect(good.output).toContain("InMemorySessionService (session service contract)");

    // A session service that loses state on reads fails the state checks, and only those.
    const b = totals(broken.output);
    expect(broken.code).toBe(1);
    expect(b.tests).toBe(expected);
    expect(b.fail).toBeGreaterThan(5);
    expect(b.pass).toBeGreaterThan(5);
    expect(broken.output).toMatch(/not ok \d+ - stores app: and user: keys as shared state/);
    expect(broken.output).toContain("Expected values to be strictly deep-equal");
  }, 120_000);

  it("refuse to start without the test functions, naming what is missing", () => {
    const factory = async () => ({ service: new InMemorySessionService() });
    const partial = { describe, it, beforeEach: () => undefined } as unknown as Parameters<
      typeof runSessionServiceContract
    >[2];
    expect(() => runSessionServiceContract("x", factory, partial)).toThrow(
      /runSessionServiceContract needs the test functions .*missing: expect, afterEach/,
    );
  });
});
