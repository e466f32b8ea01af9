import { describe, expect, it } from "@jest/globals";
import {
  App,
  BasePlugin,
  BudgetExceededError,
  ConfigurationError,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type CallbackContext,
  type InvocationContext,
  type LlmRequest,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import {
  FakeClock,
  PRICES,
  call,
  clockTool,
  makeRunner,
  newSession,
  run,
  storedEvents,
  text,
  usage,
  usageOf,
} from "./helpers.js";

/** Counts model callbacks and run ends, to see what a refused call still runs. */
class CountingPlugin extends BasePlugin {
  beforeModel = 0;
  afterRun = 0;
  constructor() {
    super("counting");
  }
  override beforeModelCallback(_args: { context: CallbackContext; request: LlmRequest }): undefined {
    this.beforeModel += 1;
    return undefined;
  }
  override afterRunCallback(_args: { invocationContext: InvocationContext }): void {
    this.afterRun += 1;
  }
}

describe("budgets", () => {
  it("refuses the model call past maxModelCalls: a stored error event, then BudgetExceededError", async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel({
      steps: [call("work", usage(10, 1)), call("work", usage(10, 1), {}, "c2"), text("never")],
    });
    const plugin = new CountingPlugin();
    const agent = new LlmAgent({ name: "root", model, tools: [clockTool(clock)] });
    const runner = new Runner({
      appName: "usage_app",
      agent,
      sessionService: new InMemorySessionService(),
      plugins: [plugin],
      budget: { invocation: { maxModelCalls: 2 } },
    });
    await newSession(runner);

    const { events, error } = await run(runner, "go");
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error).toMatchObject({
      code: "BUDGET_MODEL_CALLS_EXCEEDED",
      kind: "modelCalls",
      scope: "invocation",
      limit: 2,
      used: 2,
      agentName: "root",
    });
    const last = events.at(-1)!;
    expect(last).toMatchObject({ author: "root", errorCode: "BUDGET_MODEL_CALLS_EXCEEDED" });
    expect(last.errorMessage).toContain("invocation budget of 2 model calls is used up");
    // The client's event is the session's last one, with the usage that stopped the run.
    expect((await storedEvents(runner)).at(-1)).toEqual(last);
    expect(usageOf(last)!.invocation).toMatchObject({ modelCalls: 2, toolCalls: 2 });
    // No third call, not even its callbacks; the run ended cleanly (afterRun once).
    expect(model.remaining).toBe(1);
    expect(plugin.beforeModel).toBe(2);
    expect(plugin.afterRun).toBe(1);
  });

  it("holds a session token budget across invocations and runners; a run's own limit wins over the app's", async () => {
    const sessionService = new InMemorySessionService();
    const model = new ScriptedModel({ steps: [text("first", usage(100, 20)), text("third", usage(5, 5))] });
    const app = new App({
      name: "usage_app",
      rootAgent: new LlmAgent({ name: "root", model }),
      budget: { session: { maxTokens: 100 } },
    });
    const runner = makeRunner({ app }, sessionService);
    await newSession(runner);

    // A single call may overshoot: the check is before the call.
    const first = await run(runner, "one");
    expect(first.error).toBeUndefined();
    expect(usageOf(first.events.at(-1))!.session.tokens.total).toBe(120);

    // Any runner on the same store (another replica, a restart) sees the spent budget.
    const second = await run(makeRunner({ app }, sessionService), "two");
    expect(second.error).toMatchObject({ code: "BUDGET_TOKENS_EXCEEDED", scope: "session", limit: 100, used: 120 });
    expect(second.events.map((e) => e.errorCode)).toEqual(["BUDGET_TOKENS_EXCEEDED"]);

    const third = await run(runner, "three", { runConfig: { budget: { session: { maxTokens: 1000 } } } });
    expect(third.error).toBeUndefined();
    expect(third.events.at(-1)!.content?.parts?.[0]?.text).toBe("third");
    model.assertConsumed();
  });

  it("limits cost with the price table, and refuses a cost limit on a model without a price", async () => {
    const priced = new ScriptedModel({ steps: [call("work", usage(100, 50)), text("never")] });
    const runner = makeRunner({
      agent: new LlmAgent({ name: "root", model: priced, tools: [clockTool(new FakeClock())] }),
      prices: PRICES,
      budget: { invocation: { maxCostUsd: 0.0005 } },
    });
    await newSession(runner);
    const { error } = await run(runner, "go");
    // 100 × $2 + 50 × $10 per million = $0.0007.
    expect(error).toMatchObject({ code: "BUDGET_COST_EXCEEDED", kind: "costUsd", limit: 0.0005 });
    expect((error as BudgetExceededError).used).toBeCloseTo(0.0007, 12);

    const unpriced = new ScriptedModel({ model: "no-price", steps: [call("work", usage(1, 1)), text("never")] });
    const strict = makeRunner({
      agent: new LlmAgent({ name: "root", model: unpriced, tools: [clockTool(new FakeClock())] }),
      budget: { session: { maxCostUsd: 1 } },
    });
    await newSession(strict);
    const refused = await run(strict, "go");
    expect(refused.error).toBeInstanceOf(ConfigurationError);
    expect((refused.error as Error).message).toContain("no-price");
  });

  it("limits wall time before the next call (time measured with the runner's clock)", async () => {
    const clock = new FakeClock();
    const model = new ScriptedModel({ steps: [call("work", usage(1, 1)), text("never")] });
    const runner = makeRunner({
      agent: new LlmAgent({ name: "root", model, tools: [clockTool(clock, "work", 250)] }),
      budget: { invocation: { maxDurationMs: 200 } },
      clock,
    });
    await newSession(runner);
    const { events, error } = await run(runner, "go");
    expect(error).toMatchObject({ code: "BUDGET_DURATION_EXCEEDED", limit: 200, used: 250 });
    expect(events.map((e) => e.errorCode ?? "")).toEqual(["", "", "BUDGET_DURATION_EXCEEDED"]);
  });

  it("rejects invalid limits with a ConfigurationError naming the field", async () => {
    expect(
      () =>
        new App({
          name: "usage_app",
          rootAgent: new LlmAgent({ name: "root", model: new ScriptedModel() }),
          budget: { invocation: { maxTokens: -1 } },
        }),
    ).toThrow("invocation.maxTokens must be a number of 0 or more");
    const runner = makeRunner({ agent: new LlmAgent({ name: "root", model: new ScriptedModel() }) });
    await newSession(runner);
    const { error } = await run(runner, "go", {
      runConfig: { budget: { session: { maxCostUsd: Number.NaN } } },
    });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain("session.maxCostUsd");
    expect(() =>
      makeRunner({
        agent: new LlmAgent({ name: "root", model: new ScriptedModel() }),
        prices: { x: { inputPerMillion: -1, outputPerMillion: 1 } },
      }),
    ).toThrow('Invalid price for model "x"');
  });
});
