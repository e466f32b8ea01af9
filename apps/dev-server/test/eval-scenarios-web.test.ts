// Scenario eval cases from the dev UI's routes, against the real `agentkit web`: the example
// assistant (a copy, on its offline demo model) plays the agent, and the same model plays the user.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCliArgs } from "../src/parse-cli-args.js";
import {
  EXAMPLES_DIR,
  OFFLINE_ENV,
  startCli,
  tempAgentsDir,
  type CliProcess,
  type TempAgentsDir,
} from "./support/cli-process.js";

const SCENARIO_SET = {
  eval_set: {
    eval_set_id: "scenarios",
    eval_cases: [
      {
        eval_id: "paris_time",
        conversation_scenario: {
          starting_prompt: "What time is it in Europe/Paris?",
          conversation_plan: "Ask for the time in Paris. Once the agent says it, you are done.",
        },
      },
    ],
  },
};

interface CaseResult {
  evalId: string;
  finalEvalStatus: number;
  overallEvalMetricResults: { metricName: string; score?: number; evalStatus: number; details?: unknown }[];
  evalMetricResultPerInvocation: {
    actualInvocation: {
      userContent: { parts: { text: string }[] };
      finalResponse?: { parts: { text: string }[] };
      intermediateData?: { toolUses: { name: string; args: unknown }[] };
    };
    expectedInvocation?: unknown;
  }[];
}

async function postJson(url: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

describe("agentkit web runs the dev UI's scenario cases with a user simulator", () => {
  let agents: TempAgentsDir;
  let cli: CliProcess;
  let url = "";

  beforeAll(async () => {
    agents = tempAgentsDir("agentkit-eval-scenarios-");
    // The example app as a developer has it: its agent, and the model picker it shares.
    agents.write("assistant/agent.ts", readFileSync(join(EXAMPLES_DIR, "assistant", "agent.ts"), "utf8"));
    for (const file of ["pick-model.ts", "demo-model.ts"])
      agents.write(`_shared/${file}`, readFileSync(join(EXAMPLES_DIR, "_shared", file), "utf8"));
    cli = startCli(["web", agents.dir, "--port", "0", "--no-reload"], OFFLINE_ENV);
    url = await cli.listening(60_000);
  });
  afterAll(async () => {
    await cli?.stop();
    agents?.remove();
  });

  it("plays the scenario on the app's own model (the offline demo model) and returns the result", async () => {
    const base = `${url}/dev/apps/assistant`;
    expect((await postJson(`${base}/eval_sets`, SCENARIO_SET)).status).toBe(200);
    const run = await postJson(`${base}/eval_sets/scenarios/run_eval`, {
      eval_metrics: [
        { metric_name: "tool_call_count", threshold: 1 },
        { metric_name: "response_match_score", threshold: 0.7 },
      ],
    });
    expect(run.status).toBe(200);
    const [result] = run.body as CaseResult[];
    // The demo user ends after its starting prompt: one turn, the agent called the clock.
    expect(result!.evalMetricResultPerInvocation).toHaveLength(1);
    const [turn] = result!.evalMetricResultPerInvocation;
    expect(turn!.actualInvocation.userContent.parts[0]!.text).toBe("What time is it in Europe/Paris?");
    expect(turn!.actualInvocation.intermediateData!.toolUses).toEqual([
      expect.objectContaining({ name: "get_current_time", args: { timezone: "Europe/Paris" } }),
    ]);
    expect(turn!.actualInvocation.finalResponse!.parts[0]!.text).toMatch(
      /^It is .+ in Europe\/Paris\. \(demo model\)$/,
    );
    expect(turn!.expectedInvocation).toBeUndefined();
    expect(result!.overallEvalMetricResults).toEqual([
      expect.objectContaining({ metricName: "tool_call_count", score: 1, evalStatus: 1 }),
      // A scenario has no reference answer: that metric says so instead of failing.
      expect.objectContaining({
        metricName: "response_match_score",
        evalStatus: 3,
        details: { reason: expect.stringContaining("scenario") },
      }),
    ]);
    expect(result!.finalEvalStatus).toBe(1);
  });

  it("refuses a --user-simulator-model the registry cannot resolve before it listens (exit 2)", async () => {
    const bad = startCli(["web", agents.dir, "--port", "0", "--user-simulator-model", "no-such-model"], OFFLINE_ENV);
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toContain("--user-simulator-model: ");
    expect(bad.errors()).toContain("no-such-model");
  });

  it("takes the flag (or AGENTKIT_USER_SIMULATOR_MODEL) for web only", () => {
    const web = parseCliArgs(["web", "agents", "--user-simulator-model", "gpt-4o-mini"], {});
    expect(web).toMatchObject({ command: "web", options: { userSimulatorModel: "gpt-4o-mini" } });
    const fromEnv = parseCliArgs(["web", "agents"], { AGENTKIT_USER_SIMULATOR_MODEL: "claude-sonnet-4-5" });
    expect(fromEnv).toMatchObject({ options: { userSimulatorModel: "claude-sonnet-4-5" } });
    expect(() => parseCliArgs(["api-server", "agents", "--user-simulator-model", "gpt-4o-mini"], {})).toThrow(
      /applies to agentkit web only/,
    );
    expect(parseCliArgs(["api-server", "agents"], { AGENTKIT_USER_SIMULATOR_MODEL: "gpt-4o-mini" })).not.toMatchObject({
      options: { userSimulatorModel: expect.anything() },
    });
  });
});
