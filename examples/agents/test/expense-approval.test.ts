import { describe, expect, it } from "@jest/globals";
import {
  App,
  getFunctionCalls,
  getTextOf,
  InMemoryRunner,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  type Content,
  type Event,
} from "@agentkit/core";
import { DemoModel } from "../_shared/demo-model.js";
import { app as exported, createExpenseAssistant } from "../expense_approval/agent.js";

async function start() {
  const app = new App({
    name: "expense_approval",
    rootAgent: createExpenseAssistant(new DemoModel()),
    resumability: { isResumable: true },
  });
  const runner = new InMemoryRunner({ app });
  const session = await runner.sessionService.createSession({ appName: "expense_approval", userId: "u" });
  const send = async (newMessage: string | Content) => {
    const events: Event[] = [];
    for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) events.push(e);
    return events;
  };
  const filed = async () =>
    (await runner.sessionService.getSession({ appName: "expense_approval", userId: "u", sessionId: session.id }))!.state
      .filed_expenses as { id: string; amount: number; approvedBy: string }[] | undefined;
  return { runner, send, filed };
}

const approvalRequest = (events: Event[]) =>
  events.flatMap(getFunctionCalls).find((c) => c.name === REQUEST_INPUT_FUNCTION_CALL_NAME);

const answer = (id: string, response: Record<string, unknown>): Content => ({
  role: "user",
  parts: [{ functionResponse: { id, name: REQUEST_INPUT_FUNCTION_CALL_NAME, response } }],
});

describe("expense_approval example (demo model)", () => {
  it("is a resumable app", () => {
    expect(exported.resumability?.isResumable).toBe(true);
  });

  it("files a small expense at once", async () => {
    const { runner, send, filed } = await start();
    const events = await send("I spent 40 EUR on lunch");
    expect(approvalRequest(events)).toBeUndefined();
    expect(getTextOf(events.at(-1)!.content)).toBe(
      "Your expense of 40 EUR for lunch is filed as EXP-1 (approved by policy). (demo model)",
    );
    expect(await filed()).toEqual([expect.objectContaining({ id: "EXP-1", amount: 40, approvedBy: "policy" })]);
    await runner.close();
  });

  it("asks a person above the limit; approved, the expense is filed once", async () => {
    const { runner, send, filed } = await start();
    const first = await send("I spent 250 EUR on train tickets");
    const request = approvalRequest(first)!;
    expect(request.args).toMatchObject({
      message: "Approve 250 EUR for train tickets?",
      payload: { amount: 250, currency: "EUR", purpose: "train tickets" },
    });
    expect(await filed()).toBeUndefined();

    const second = await send(answer(request.id!, { approved: true }));
    expect(getTextOf(second.at(-1)!.content)).toBe(
      "Your expense of 250 EUR for train tickets is filed as EXP-1 (approved by manager). (demo model)",
    );
    expect(await filed()).toEqual([expect.objectContaining({ id: "EXP-1", amount: 250, approvedBy: "manager" })]);
    await runner.close();
  });

  it("rejected, nothing is filed and the user is told why", async () => {
    const { runner, send, filed } = await start();
    const request = approvalRequest(await send("I spent 900 USD on a chair"))!;
    const second = await send(answer(request.id!, { approved: false, comment: "over budget" }));
    expect(getTextOf(second.at(-1)!.content)).toBe(
      "Your expense of 900 USD for a chair was rejected: over budget. (demo model)",
    );
    expect(await filed()).toBeUndefined();
    await runner.close();
  });
});
