import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  FunctionTool,
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  LlmAgent,
  LongRunningFunctionTool,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  type Content,
  type Event,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { Harness, texts } from "./helpers.js";

function answer(id: string, name: string, response: Record<string, unknown>): Content {
  return { role: "user", parts: [{ functionResponse: { id, name, response } }] };
}

describe("long-running tools", () => {
  it("pauses when the tool returns nothing and resumes with the client's answer paired to the call", async () => {
    const ticket = new LongRunningFunctionTool({ name: "ask_manager", description: "asks", execute: () => undefined });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("ask_manager", { amount: 5 }),
        {
          expect: (req) => {
            const tail = req.contents.slice(-2);
            expect(tail[0]!.parts![0]!.functionCall!.name).toBe("ask_manager");
            expect(tail[1]).toEqual(answer(tail[0]!.parts![0]!.functionCall!.id!, "ask_manager", { approved: true }));
          },
          step: ScriptedModel.text("approved, done"),
        },
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [ticket] });
    const h = await Harness.create();
    const first = await h.run(agent, "please");
    expect(first).toHaveLength(1);
    const callId = getFunctionCalls(first[0]!)[0]!.id!;
    expect(first[0]!.longRunningToolIds).toEqual([callId]);
    expect(isFinalResponse(first[0]!)).toBe(true);

    const second = await h.run(agent, answer(callId, "ask_manager", { approved: true }));
    expect(texts(second)).toEqual(["approved, done"]);
    model.assertConsumed();
  });

  it("sends an interim result back and continues", async () => {
    const ticket = new LongRunningFunctionTool({
      name: "start_job",
      description: "starts",
      execute: () => ({ status: "pending" }),
    });
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("start_job", {}, "j1"), ScriptedModel.text("started")],
    });
    const h = await Harness.create();
    const events = await h.run(new LlmAgent({ name: "a", model, tools: [ticket] }), "go");
    expect(events[0]!.longRunningToolIds).toEqual(["j1"]);
    expect(getFunctionResponses(events[1]!)[0]!.response).toEqual({ status: "pending" });
    expect(texts(events)).toEqual(["started"]);
  });

  it("moves a late answer right after its call in later history", async () => {
    const ticket = new LongRunningFunctionTool({ name: "job", description: "job", execute: () => undefined });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("job", {}, "j1"),
        ScriptedModel.text("got it"),
        {
          expect: (req) => {
            const roles = req.contents.map((c) =>
              c.parts![0]!.functionCall ? "call" : c.parts![0]!.functionResponse ? "response" : c.parts![0]!.text,
            );
            expect(roles).toEqual(["start", "call", "response", "got it", "next"]);
          },
          step: ScriptedModel.text("fine"),
        },
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [ticket] });
    const h = await Harness.create();
    await h.run(agent, "start");
    await h.run(agent, answer("j1", "job", { done: 1 }));
    expect(texts(await h.run(agent, "next"))).toEqual(["fine"]);
  });
});

describe("tool confirmation (adk_request_confirmation)", () => {
  const setup = () => {
    const runs: unknown[] = [];
    const transfer = new FunctionTool({
      name: "transfer_money",
      description: "moves money",
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }, ctx) => {
        runs.push(ctx.toolConfirmation);
        return { done: true, amount };
      },
    });
    return { runs, transfer };
  };

  async function requestConfirmation(h: Harness, agent: LlmAgent): Promise<{ events: Event[]; requestId: string }> {
    const events = await h.run(agent, "send 10");
    expect(events).toHaveLength(3);
    const [, responseEvent, request] = events;
    expect(getFunctionResponses(responseEvent!)[0]).toMatchObject({ id: "orig", name: "transfer_money" });
    expect(responseEvent!.actions.requestedToolConfirmations.orig).toMatchObject({ confirmed: false });
    const call = getFunctionCalls(request!)[0]!;
    expect(request!.author).toBe("a");
    expect(request!.content!.role).toBe("user");
    expect(call.name).toBe(REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
    expect(call.id).toMatch(/^adk-/);
    expect(call.args).toMatchObject({
      originalFunctionCall: { id: "orig", name: "transfer_money", args: { amount: 10 } },
      toolConfirmation: { confirmed: false },
    });
    expect(request!.longRunningToolIds).toEqual([call.id]);
    expect(request!.actions.requestedToolConfirmations).toEqual({
      orig: expect.objectContaining({ confirmed: false }),
    });
    return { events, requestId: call.id! };
  }

  it("asks, then on approval runs the tool under the original call id and continues", async () => {
    const { runs, transfer } = setup();
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("transfer_money", { amount: 10 }, "orig"),
        {
          expect: (req) => {
            const text = JSON.stringify(req.contents);
            expect(text).not.toContain(REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
            expect(req.contents.slice(-2)).toEqual([
              {
                role: "model",
                parts: [{ functionCall: { id: "orig", name: "transfer_money", args: { amount: 10 } } }],
              },
              {
                role: "user",
                parts: [
                  { functionResponse: { id: "orig", name: "transfer_money", response: { done: true, amount: 10 } } },
                ],
              },
            ]);
          },
          step: ScriptedModel.text("Sent 10."),
        },
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [transfer] });
    const h = await Harness.create();
    const { requestId } = await requestConfirmation(h, agent);
    expect(runs).toEqual([]);

    const resumed = await h.run(agent, answer(requestId, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, { confirmed: true }));
    expect(getFunctionResponses(resumed[0]!)[0]).toEqual({
      id: "orig",
      name: "transfer_money",
      response: { done: true, amount: 10 },
    });
    expect(texts(resumed)).toEqual(["Sent 10."]);
    expect(runs).toEqual([{ confirmed: true }]);
    model.assertConsumed();
  });

  it("on rejection answers the model with an error without running the tool", async () => {
    const { runs, transfer } = setup();
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("transfer_money", { amount: 10 }, "orig"), ScriptedModel.text("Cancelled.")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [transfer] });
    const h = await Harness.create();
    const { requestId } = await requestConfirmation(h, agent);
    const resumed = await h.run(
      agent,
      answer(requestId, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, { confirmed: false }),
    );
    expect(getFunctionResponses(resumed[0]!)[0]!.response).toEqual({ error: "This tool call is rejected." });
    expect(texts(resumed)).toEqual(["Cancelled."]);
    expect(runs).toEqual([]);
  });

  it("accepts the legacy { response: '<json>' } answer with a payload", async () => {
    const { runs, transfer } = setup();
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("transfer_money", { amount: 10 }, "orig"), ScriptedModel.text("ok")],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [transfer] });
    const h = await Harness.create();
    const { requestId } = await requestConfirmation(h, agent);
    await h.run(
      agent,
      answer(requestId, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, {
        response: JSON.stringify({ confirmed: true, payload: { note: "x" } }),
      }),
    );
    expect(runs).toEqual([{ confirmed: true, payload: { note: "x" } }]);
  });
});
