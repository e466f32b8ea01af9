import { toolResponsesOf } from "../../src/evals/invocation-data.js";
import { describe, expect, it } from "@jest/globals";
import { FunctionTool, getTextOf, InMemorySessionService, LlmAgent, Runner } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import {
  createEvalMetrics,
  EvalStatus,
  parseEvalSet,
  runEvalSet,
  ToolSimulationPlugin,
  type EvalSet,
} from "../../src/evals/index.js";

/** A tool with a real side effect: evals that simulate it must never run it. */
function chargeTool(charges: number[]) {
  return new FunctionTool({
    name: "charge_card",
    description: "Charges the card",
    parameters: z.object({ amount: z.number() }),
    execute: ({ amount }) => {
      charges.push(amount);
      return { charged: amount, receipt: "real" };
    },
  });
}

const definitions = createEvalMetrics();
const trajectory = [{ metricName: "tool_trajectory_avg_score", threshold: 1 }];

async function run(model: ScriptedModel, set: EvalSet, charges: number[], withPlugin = true, parallel = 1) {
  const sessionService = new InMemorySessionService();
  const toolSimulator = new ToolSimulationPlugin();
  const runner = new Runner({
    appName: "shop",
    agent: new LlmAgent({ name: "shop", model, tools: [chargeTool(charges)] }),
    sessionService,
    plugins: withPlugin ? [toolSimulator] : [],
  });
  try {
    return await runEvalSet({
      runner,
      sessionService,
      appName: "shop",
      evalSet: set,
      metrics: trajectory,
      definitions,
      parallel,
      ...(withPlugin ? { toolSimulator } : {}),
    });
  } finally {
    await runner.close();
  }
}

function chargeCase(evalId: string, amounts: number[], toolSimulation: unknown) {
  return {
    eval_id: evalId,
    conversation: amounts.map((amount) => ({
      user_content: { role: "user", parts: [{ text: `charge ${amount}` }] },
      intermediate_data: {
        tool_uses: [{ id: `c-${amount}`, name: "charge_card", args: { amount } }],
        tool_responses: [
          { id: `c-${amount}`, name: "charge_card", response: { charged: amount, receipt: "recorded" } },
        ],
      },
    })),
    tool_simulation: toolSimulation,
  };
}

/** The agent charges each amount it is told, then says what the tool answered. */
function chargingModel(amounts: number[]): ScriptedModel {
  return new ScriptedModel({
    steps: amounts.flatMap((amount) => [
      ScriptedModel.functionCall("charge_card", { amount }),
      ScriptedModel.text(`done ${amount}`),
    ]),
  });
}

function toolResponses(result: Awaited<ReturnType<typeof run>>, caseIndex = 0) {
  return result.evalCaseResults[caseIndex]!.evalMetricResultPerInvocation.flatMap((row) =>
    toolResponsesOf(row.actualInvocation).map((r) => r.response),
  );
}

describe("tool simulation in eval cases", () => {
  it("answers from rules (argument match) and injects errors: the real tool never runs", async () => {
    const charges: number[] = [];
    const set = parseEvalSet({
      eval_set_id: "s",
      eval_cases: [
        chargeCase("rules", [5, 500], {
          unmatched: "error",
          rules: [
            { tool_name: "charge_card", args: { amount: 500 }, error: "card declined" },
            { tool_name: "charge_card", response: { charged: "any", receipt: "simulated" } },
          ],
        }),
      ],
    });
    const result = await run(chargingModel([5, 500]), set, charges);
    expect(charges).toEqual([]);
    expect(toolResponses(result)).toEqual([{ charged: "any", receipt: "simulated" }, { error: "card declined" }]);
    // The calls themselves still match the expected trajectory.
    expect(result.evalCaseResults[0]!.finalEvalStatus).toBe(EvalStatus.PASSED);
  });

  it("replays the tool results recorded in the case; an unrecorded call gets an error, not the real tool", async () => {
    const charges: number[] = [];
    const set = parseEvalSet({
      eval_set_id: "s",
      eval_cases: [chargeCase("replay", [7], { replay_recorded: true, unmatched: "error" })],
    });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("charge_card", { amount: 7 }),
        ScriptedModel.functionCall("charge_card", { amount: 7 }),
        ScriptedModel.text("done"),
      ],
    });
    const result = await run(model, set, charges);
    expect(charges).toEqual([]);
    expect(toolResponses(result)).toEqual([
      { charged: 7, receipt: "recorded" },
      { error: 'No simulated result for charge_card({"amount":7}) in this eval case.' },
    ]);
  });

  it("applies a rule's probability from the case's seed: the same seed fails the same calls", async () => {
    const amounts = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    const pattern = async (seed: number) => {
      const set = parseEvalSet({
        eval_set_id: "s",
        eval_cases: [
          chargeCase("flaky", amounts, {
            seed,
            unmatched: "error",
            rules: [
              { tool_name: "charge_card", error: "timeout", probability: 0.5 },
              { tool_name: "charge_card", response: { ok: true } },
            ],
          }),
        ],
      });
      const result = await run(chargingModel(amounts), set, []);
      return toolResponses(result).map((r) => ("error" in r! ? "E" : "."));
    };
    const first = await pattern(42);
    expect(await pattern(42)).toEqual(first);
    expect(first).toContain("E");
    expect(first).toContain(".");
    expect(await pattern(7)).not.toEqual(first);
  });

  it("does not run a simulated case without the plugin: NOT_EVALUATED, tools untouched", async () => {
    const charges: number[] = [];
    const set = parseEvalSet({ eval_set_id: "s", eval_cases: [chargeCase("c", [5], { replay_recorded: true })] });
    const result = await run(new ScriptedModel({ steps: [] }), set, charges, false);
    expect(charges).toEqual([]);
    const [c] = result.evalCaseResults;
    expect(c!.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
    expect(c!.overallEvalMetricResults[0]!.details).toEqual({
      reason: "the case simulates tools: the runner needs the tool simulation plugin",
    });
  });

  it("rejects a rule with both a response and an error, naming the field", () => {
    expect(() =>
      parseEvalSet({
        eval_set_id: "s",
        eval_cases: [{ eval_id: "c", tool_simulation: { rules: [{ tool_name: "t", response: {}, error: "x" }] } }],
      }),
    ).toThrow(/give exactly one of response and error/);
  });
});

describe("user simulation of conversation scenarios", () => {
  const scenarioSet = (): EvalSet =>
    parseEvalSet({
      eval_set_id: "sim",
      eval_cases: [
        {
          eval_id: "scenario_1",
          conversation_scenario: {
            starting_prompt: "I want to buy socks",
            conversation_plan: "Ask for red socks, size 42. Then stop.",
            user_persona: "a terse expert",
          },
        },
      ],
    });

  const agentRun = async (agentModel: ScriptedModel, simulator: ScriptedModel, maxAllowedInvocations?: number) => {
    const sessionService = new InMemorySessionService();
    const runner = new Runner({
      appName: "shop",
      agent: new LlmAgent({ name: "shop", model: agentModel }),
      sessionService,
    });
    try {
      return await runEvalSet({
        runner,
        sessionService,
        appName: "shop",
        evalSet: scenarioSet(),
        metrics: [{ metricName: "response_match_score", threshold: 0.5 }],
        definitions,
        userSimulator: { model: simulator, ...(maxAllowedInvocations ? { maxAllowedInvocations } : {}) },
      });
    } finally {
      await runner.close();
    }
  };

  it("plays the starting prompt, then the simulator's messages until it sends the stop signal", async () => {
    const agentModel = new ScriptedModel({
      steps: [ScriptedModel.text("Which colour and size?"), ScriptedModel.text("Red socks, size 42: ordered.")],
    });
    const simulator = new ScriptedModel({
      model: "simulator",
      steps: [ScriptedModel.text("Red, size 42."), ScriptedModel.text("</finished>")],
    });
    const result = await agentRun(agentModel, simulator);
    const [c] = result.evalCaseResults;
    expect(
      c!.evalMetricResultPerInvocation.map((row) => [
        getTextOf(row.actualInvocation.userContent),
        getTextOf(row.actualInvocation.finalResponse),
      ]),
    ).toEqual([
      ["I want to buy socks", "Which colour and size?"],
      ["Red, size 42.", "Red socks, size 42: ordered."],
    ]);
    // The reference metrics have nothing to compare with: not evaluated, not failed.
    expect(c!.finalEvalStatus).toBe(EvalStatus.NOT_EVALUATED);
    const lastPrompt = getTextOf(simulator.requests[1]!.contents[0]);
    expect(lastPrompt).toContain("Ask for red socks, size 42. Then stop.");
    expect(lastPrompt).toContain("a terse expert");
    expect(lastPrompt).toContain("user: Red, size 42.\n\nagent: Red socks, size 42: ordered.");
    simulator.assertConsumed();
  });

  it("stops at max_allowed_invocations (the starting prompt counts)", async () => {
    const agentModel = new ScriptedModel({ steps: [ScriptedModel.text("a"), ScriptedModel.text("b")] });
    const simulator = new ScriptedModel({ model: "simulator", steps: [ScriptedModel.text("more")] });
    const result = await agentRun(agentModel, simulator, 2);
    expect(result.evalCaseResults[0]!.evalMetricResultPerInvocation).toHaveLength(2);
    simulator.assertConsumed();
  });

  it("is not evaluated without a user simulator, and says why", async () => {
    const sessionService = new InMemorySessionService();
    const model = new ScriptedModel({ steps: [] });
    const runner = new Runner({ appName: "shop", agent: new LlmAgent({ name: "shop", model }), sessionService });
    const result = await runEvalSet({
      runner,
      sessionService,
      appName: "shop",
      evalSet: scenarioSet(),
      metrics: trajectory,
      definitions,
    });
    await runner.close();
    expect(result.evalCaseResults[0]!.overallEvalMetricResults[0]).toMatchObject({
      evalStatus: EvalStatus.NOT_EVALUATED,
      details: { reason: expect.stringContaining("needs a user simulator model") },
    });
  });
});
