import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { main } from "../src/main.js";
import { parseCliArgs } from "../src/parse-cli-args.js";
import { EXAMPLES_DIR, OFFLINE_ENV, startCli, tempAgentsDir, type TempAgentsDir } from "./support/cli-process.js";

// An app whose model echoes the user, with a plugin that rewrites every answer: an eval
// expecting the rewritten text passes only if the app's plugins run inside the eval.
const ECHO_APP = `import { App, BaseLlm, BasePlugin, LlmAgent, getTextOf } from "@agentkit/core";
class Echo extends BaseLlm {
  constructor() { super({ model: "echo" }); }
  async *generateContentAsync(request) {
    const last = request.contents[request.contents.length - 1];
    yield { content: { role: "model", parts: [{ text: "echo: " + getTextOf(last) }] } };
  }
}
class Polite extends BasePlugin {
  constructor() { super("polite"); }
  afterModelCallback({ response }) {
    return { ...response, content: { role: "model", parts: [{ text: getTextOf(response.content) + " please" }] } };
  }
}
export const app = new App({ name: "echo_app", rootAgent: new LlmAgent({ name: "echo", model: new Echo() }), plugins: [new Polite()] });
`;

function turn(user: string, answer: string) {
  return {
    user_content: { role: "user", parts: [{ text: user }] },
    final_response: { role: "model", parts: [{ text: answer }] },
    intermediate_data: { tool_uses: [], intermediate_responses: [] },
  };
}

const ECHO_SET = {
  eval_set_id: "echo_set",
  eval_cases: [
    { eval_id: "hello", conversation: [turn("hello", "echo: hello please")] },
    { eval_id: "two_turns", conversation: [turn("one", "echo: one please"), turn("two", "echo: two please")] },
    { eval_id: "wrong", conversation: [turn("bye", "something else entirely")] },
  ],
};

async function inProcess(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write: (chunk: Buffer, _enc, done) => {
        append(chunk.toString());
        done();
      },
    });
  const code = await main(args, { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {} });
  return { code, out, err };
}

async function spawnCli(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const cli = startCli(args, OFFLINE_ENV);
  const code = await cli.exited;
  return { code, out: cli.output(), err: cli.errors() };
}

describe("agentkit eval", () => {
  let agents: TempAgentsDir;
  let appDir = "";
  let setFile = "";

  beforeAll(() => {
    agents = tempAgentsDir("agentkit-eval-cli-");
    agents.write("echo_app/agent.ts", ECHO_APP);
    agents.write("echo_app/echo_set.evalset.json", JSON.stringify(ECHO_SET));
    appDir = join(agents.dir, "echo_app");
    setFile = join(appDir, "echo_set.evalset.json");
  });
  afterAll(() => agents.remove());

  it("parses the eval flags; bad values are usage errors", () => {
    expect(
      parseCliArgs([
        "eval",
        "agents",
        "a.evalset.json:c1,c2",
        "b",
        "--config",
        "t.json",
        "--parallel",
        "4",
        "--baseline",
        "old.json",
        "--max-regression",
        "0.1",
        "--max-regression",
        "response_match_score=0.2",
      ]),
    ).toEqual({
      command: "eval",
      options: {
        target: "agents",
        evalSets: ["a.evalset.json:c1,c2", "b"],
        configFile: "t.json",
        parallel: 4,
        baselineFile: "old.json",
        maxRegression: { default: 0.1, perMetric: { response_match_score: 0.2 } },
      },
    });
    expect(() => parseCliArgs(["eval", "agents"])).toThrow(/Usage: agentkit eval/);
    expect(() => parseCliArgs(["eval", "agents", "s", "--parallel", "0"])).toThrow(/--parallel/);
    expect(() => parseCliArgs(["eval", "agents", "s", "--max-regression", "0.1"])).toThrow(/needs --baseline/);
    expect(() => parseCliArgs(["eval", "agents", "s", "--baseline", "b", "--max-regression", "x=-1"])).toThrow(
      /non-negative/,
    );
    expect(() => parseCliArgs(["eval_set", "add_case", "app", "set"])).toThrow(/exactly one of --session/);
  });

  it("exits 1 when a case fails, runs the app's plugins, writes ADK-shaped JSON and JUnit XML (real CLI)", async () => {
    const output = join(agents.dir, "out", "results.json");
    const junit = join(agents.dir, "out", "results.xml");
    const { code, out, err } = await spawnCli([
      "eval",
      appDir,
      setFile,
      "--parallel",
      "3",
      "--output",
      output,
      "--junit",
      junit,
    ]);
    expect({ code, err }).toEqual({ code: 1, err: "" });
    expect(out).toMatch(/^PASS\s+echo_set\s+hello\s+1\.00 >= 1\.00\s+1\.00 >= 0\.80$/m);
    expect(out).toMatch(/^PASS\s+echo_set\s+two_turns\s/m);
    expect(out).toMatch(/^FAIL\s+echo_set\s+wrong\s+1\.00 >= 1\.00\s+0\.00 < 0\.80$/m);
    expect(out).toContain("- response_match_score: 0.00 < 0.80");
    expect(out).toContain("3 cases: 2 passed, 1 failed, 0 not evaluated");

    // ADK Python's field names (snake_case) and status numbers.
    const results = JSON.parse(readFileSync(output, "utf8")) as {
      eval_set_id: string;
      eval_set_result_id: string;
      eval_case_results: {
        eval_id: string;
        final_eval_status: number;
        eval_metric_result_per_invocation: unknown[];
        overall_eval_metric_results: { metric_name: string; eval_status: number }[];
      }[];
    }[];
    expect(results).toHaveLength(1);
    expect(results[0]!.eval_set_id).toBe("echo_set");
    expect(results[0]!.eval_case_results.map((c) => [c.eval_id, c.final_eval_status])).toEqual([
      ["hello", 1],
      ["two_turns", 1],
      ["wrong", 2],
    ]);
    expect(
      results[0]!.eval_case_results[2]!.overall_eval_metric_results.map((m) => [m.metric_name, m.eval_status]),
    ).toEqual([
      ["tool_trajectory_avg_score", 1],
      ["response_match_score", 2],
    ]);
    expect(results[0]!.eval_case_results[1]!.eval_metric_result_per_invocation).toHaveLength(2);
    // Kept in the store's history too, where the dev UI lists past runs.
    const history = join(agents.dir, ".agentkit", "evals", "echo_app", "eval_history");
    expect(readdirSync(history)).toEqual([`${results[0]!.eval_set_result_id}.evalset_result.json`]);

    const xml = readFileSync(junit, "utf8");
    expect(xml).toContain('<testsuites name="agentkit eval" tests="3" failures="1" errors="0">');
    expect(xml).toMatch(/<testcase classname="echo_app\.echo_set" name="hello" time="[\d.]+"\/>/);
    expect(xml).toContain('<failure type="FAILED" message="response_match_score: 0.00 &lt; 0.80">');
  });

  it("runs only the named cases, reads test_config.json, and gates on a baseline", async () => {
    const config = join(agents.dir, "strict.json");
    agents.write("strict.json", JSON.stringify({ criteria: { response_match_score: { threshold: 0.5 } } }));
    const baseline = join(agents.dir, "baseline.json");
    const first = await inProcess([
      "eval",
      agents.dir,
      `${setFile}:hello,wrong`,
      "--config",
      config,
      "--output",
      baseline,
    ]);
    expect(first.code).toBe(1);
    expect(first.out).not.toContain("two_turns");
    expect(first.out).not.toContain("tool_trajectory_avg_score");

    // A baseline where "hello" scored the same and "wrong" better: the drop on "wrong" regresses.
    const previous = JSON.parse(readFileSync(baseline, "utf8")) as {
      eval_case_results: { eval_id: string; overall_eval_metric_results: { score: number }[] }[];
    }[];
    previous[0]!.eval_case_results.find((c) => c.eval_id === "wrong")!.overall_eval_metric_results[0]!.score = 0.3;
    agents.write("baseline.json", JSON.stringify(previous));
    const onlyHello = `${setFile}:hello`;
    const same = await inProcess(["eval", appDir, onlyHello, "--config", config, "--baseline", baseline]);
    expect({ code: same.code, err: same.err }).toEqual({ code: 0, err: "" });
    expect(same.out).toContain("1 case: 1 passed, 0 failed, 0 not evaluated\n");

    const regressed = await inProcess(["eval", appDir, `${setFile}:wrong`, "--config", config, "--baseline", baseline]);
    expect(regressed.code).toBe(1);
    expect(regressed.out).toContain("Regressions against the baseline (1):");
    expect(regressed.out).toContain("echo_set/wrong response_match_score: 0.30 -> 0.00 (allowed drop 0)");
    const tolerated = await inProcess([
      "eval",
      appDir,
      `${setFile}:wrong`,
      "--config",
      config,
      "--baseline",
      baseline,
      "--max-regression",
      "response_match_score=0.5",
    ]);
    expect(tolerated.out).not.toContain("Regressions");

    // A baseline written by an earlier agentkit (camelCase field names) gates the same way.
    const camel = previous.map((set) => toCamelCaseBaseline(set));
    agents.write("camel-baseline.json", JSON.stringify(camel));
    const camelBaseline = join(agents.dir, "camel-baseline.json");
    const fromCamel = await inProcess([
      "eval",
      appDir,
      `${setFile}:wrong`,
      "--config",
      config,
      "--baseline",
      camelBaseline,
    ]);
    expect(fromCamel.code).toBe(1);
    expect(fromCamel.out).toContain("echo_set/wrong response_match_score: 0.30 -> 0.00 (allowed drop 0)");
    // And a baseline that is not a result is a usage error naming the file.
    agents.write("not-results.json", JSON.stringify([{ hello: "world" }]));
    const bad = await inProcess([
      "eval",
      appDir,
      onlyHello,
      "--config",
      config,
      "--baseline",
      join(agents.dir, "not-results.json"),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("not-results.json: [0]: expected an eval set result");
  });

  it("rejects unknown metrics, unknown cases and missing eval sets with exit 2, naming the field", async () => {
    agents.write("bad.json", JSON.stringify({ criteria: { response_match_score: 0.5, made_up_metric: 1 } }));
    const badMetric = await inProcess(["eval", appDir, setFile, "--config", join(agents.dir, "bad.json")]);
    expect(badMetric.code).toBe(2);
    expect(badMetric.err).toContain("criteria.made_up_metric: unknown metric (known: ");
    agents.write(
      "bad-sim.json",
      JSON.stringify({ criteria: { response_match_score: 0.5 }, user_simulator_config: { model: "" } }),
    );
    const badSimulator = await inProcess(["eval", appDir, setFile, "--config", join(agents.dir, "bad-sim.json")]);
    expect(badSimulator.code).toBe(2);
    expect(badSimulator.err).toContain("user_simulator_config.model: expected a model name");
    const badCase = await inProcess(["eval", appDir, `${setFile}:nope`]);
    expect(badCase.code).toBe(2);
    expect(badCase.err).toContain('eval set echo_set has no case "nope"');
    const missing = await inProcess(["eval", appDir, "no_such_set"]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('no eval set "no_such_set" in app echo_app');
    const outside = await inProcess(["eval", agents.dir, join(agents.dir, "bad.json")]);
    expect(outside.code).toBe(2);
    expect(outside.err).toContain("cannot tell which app this eval set is for");
  });

  it("eval_set create and add_case from a session file or a scenarios file, then runs the set by id", async () => {
    expect((await inProcess(["eval_set", "create", appDir, "from_cli"])).code).toBe(0);
    const again = await inProcess(["eval_set", "create", appDir, "from_cli"]);
    expect(again.code).toBe(1);
    expect(again.err).toContain("Eval set already exists: from_cli");
    const session = {
      id: "s-1",
      appName: "echo_app",
      userId: "dev",
      state: {},
      lastUpdateTime: 1,
      events: [
        {
          id: "e1",
          invocationId: "i1",
          author: "user",
          timestamp: 1,
          content: { role: "user", parts: [{ text: "hi" }] },
        },
        {
          id: "e2",
          invocationId: "i1",
          author: "echo",
          timestamp: 2,
          content: { role: "model", parts: [{ text: "echo: hi please" }] },
        },
      ],
    };
    agents.write("session.json", JSON.stringify(session));
    const added = await inProcess([
      "eval_set",
      "add_case",
      appDir,
      "from_cli",
      "--session",
      join(agents.dir, "session.json"),
      "--eval-id",
      "greeting",
    ]);
    expect(added).toEqual({ code: 0, out: "Added greeting to eval set from_cli of app echo_app\n", err: "" });
    agents.write(
      "scenarios.json",
      JSON.stringify({ scenarios: [{ starting_prompt: "hi", conversation_plan: "Say hi, then stop." }] }),
    );
    const scenarios = await inProcess([
      "eval_set",
      "add_case",
      appDir,
      "from_cli",
      "--scenarios",
      join(agents.dir, "scenarios.json"),
    ]);
    expect(scenarios.out).toBe("Added scenario_2 to eval set from_cli of app echo_app\n");
    const stored = JSON.parse(
      readFileSync(join(agents.dir, ".agentkit", "evals", "echo_app", "eval_sets", "from_cli.evalset.json"), "utf8"),
    ) as { evalCases: Record<string, unknown>[] };
    expect(stored.evalCases[1]).not.toHaveProperty("conversation"); // a case has one or the other
    expect(stored.evalCases[1]).toMatchObject({
      evalId: "scenario_2",
      conversationScenario: { startingPrompt: "hi", conversationPlan: "Say hi, then stop." },
    });
    const run = await inProcess(["eval", appDir, "from_cli:greeting"]);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: "" });
    expect(run.out).toMatch(/^PASS\s+from_cli\s+greeting\s/m);
  });
});

describe("the example eval set (CI runs it through the real CLI)", () => {
  let out: TempAgentsDir;
  beforeAll(() => {
    out = tempAgentsDir("agentkit-eval-example-");
  });
  afterAll(() => out.remove());

  it("passes on the offline demo model with simulated tools and exits 0", async () => {
    const output = join(out.dir, "results.json");
    const {
      code,
      out: stdout,
      err,
    } = await spawnCli([
      "eval",
      join(EXAMPLES_DIR, "assistant"),
      join(EXAMPLES_DIR, "assistant", "evals", "assistant_basics.evalset.json"),
      "--parallel",
      "2",
      "--output",
      output,
    ]);
    expect({ code, err }).toEqual({ code: 0, err: "" });
    for (const evalId of ["time_in_paris", "roll_d20_then_d6", "greeting"])
      expect(stdout).toMatch(
        new RegExp(`^PASS\\s+assistant_basics\\s+${evalId}\\s+1\\.00 >= 1\\.00\\s+1\\.00 >= 0\\.80$`, "m"),
      );
    expect(stdout).toContain("3 cases: 3 passed, 0 failed, 0 not evaluated");
    // The clock and the dice answered from the case's simulation, not for real.
    const [result] = JSON.parse(readFileSync(output, "utf8")) as {
      eval_case_results: {
        eval_id: string;
        eval_metric_result_per_invocation: {
          actual_invocation: { intermediate_data: { tool_responses: { response: unknown }[] } };
        }[];
      }[];
    }[];
    const responses = (evalId: string) =>
      result!.eval_case_results
        .find((c) => c.eval_id === evalId)!
        .eval_metric_result_per_invocation.flatMap((r) => r.actual_invocation.intermediate_data.tool_responses)
        .map((r) => r.response);
    expect(responses("time_in_paris")).toEqual([{ timezone: "Europe/Paris", time: "12:00:00" }]);
    expect(responses("roll_d20_then_d6")).toEqual([
      { sides: 20, result: 17 },
      { sides: 6, result: 4 },
    ]);
    expect(existsSync(join(EXAMPLES_DIR, ".agentkit", "evals", "assistant", "eval_history"))).toBe(true);
  });
});

/** An --output entry as agentkit wrote it before it used ADK Python's names: camelCase keys. */
function toCamelCaseBaseline(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toCamelCaseBaseline);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase()),
      // Free-form values (arguments, state, results) keep their keys.
      ["args", "response", "state", "state_delta", "details", "criterion"].includes(key)
        ? inner
        : toCamelCaseBaseline(inner),
    ]),
  );
}
