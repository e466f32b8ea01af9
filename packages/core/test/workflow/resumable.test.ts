import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  App,
  ERROR_ROUTE,
  FunctionNode,
  FunctionTool,
  InMemoryRunner,
  InvalidUserMessageError,
  JoinNode,
  LlmAgent,
  LongRunningFunctionTool,
  LoopAgent,
  NothingToResumeError,
  NotResumableError,
  ParallelAgent,
  REQUEST_CONFIRMATION_FUNCTION_CALL_NAME,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  RunAbortedError,
  SequentialAgent,
  Workflow,
  createEvent,
  getFunctionCalls,
  type BaseAgent,
  type Content,
  type Event,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { ScriptAgent, say } from "../runner-fixtures/test-agents.js";
import { outputs } from "./helpers.js";

/** A resumable app on an in-memory runner, and helpers to send messages and answers. */
async function resumableApp(rootAgent: BaseAgent) {
  const runner = new InMemoryRunner({ app: new App({ name: "app", rootAgent, resumability: { isResumable: true } }) });
  await runner.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
  const collect = async (run: AsyncGenerator<Event>) => {
    const out: Event[] = [];
    for await (const e of run) out.push(e);
    return out;
  };
  const send = (newMessage: string | Content, signal?: AbortSignal) =>
    collect(runner.runAsync({ userId: "u", sessionId: "s", newMessage, signal }));
  const answer = (id: string, name: string, response: Record<string, unknown>) =>
    send({ role: "user", parts: [{ functionResponse: { id, name, response } }] });
  const resume = () => collect(runner.resume({ userId: "u", sessionId: "s" }));
  const session = async () =>
    (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: "s" }))!;
  return { runner, send, answer, resume, session };
}

/** The pending call the run stopped on (the last call listed in `longRunningToolIds`). */
function pendingCall(events: Event[]) {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    const call = getFunctionCalls(event).find((c) => event.longRunningToolIds?.includes(c.id!));
    if (call) return call;
  }
  throw new Error("no pending call");
}

const askTool = () =>
  new LongRunningFunctionTool({ name: "ask_human", description: "Asks a person.", execute: () => undefined });

describe("resumable apps: a pause inside workflow agents continues the parents", () => {
  it("SequentialAgent: the paused sub-agent continues with the answer, then the next sub-agent runs", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("ask_human", { q: "ok?" }, "c1"), ScriptedModel.text("thanks, continuing")],
    });
    const before = new ScriptAgent({ name: "before", steps: [say("prepared")] });
    const after = new ScriptAgent({ name: "after", steps: [say("finished")] });
    const app = await resumableApp(
      new SequentialAgent({
        name: "pipeline",
        subAgents: [before, new LlmAgent({ name: "asker", model, tools: [askTool()] }), after],
      }),
    );
    const first = await app.send("start");
    expect(pendingCall(first).id).toBe("c1");
    expect(after.seen).toHaveLength(0); // the path stops at the pause
    const waiting = first.find((e) => e.nodeInfo?.status === "waiting")!;
    expect(waiting).toMatchObject({ author: "asker", nodeInfo: { path: "pipeline/asker@1" } });
    expect(waiting.actions.agentState).toEqual({ interrupts: ["c1"] });

    const second = await app.answer("c1", "ask_human", { answer: "yes" });
    expect(second.filter((e) => e.content).map((e) => [e.author, e.content!.parts![0]!.text])).toEqual([
      ["asker", "thanks, continuing"],
      ["after", "finished"],
    ]);
    expect(before.seen).toHaveLength(1); // completed before the pause: not run again
    expect(after.seen).toHaveLength(1);
    expect(second.at(-1)).toMatchObject({ author: "pipeline", nodeInfo: { path: "pipeline", status: "completed" } });
    model.assertConsumed();
  });

  it("LoopAgent: a pause in round 1 continues the round and the loop", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("ask_human", {}, "c1"),
        ScriptedModel.text("got it"),
        ScriptedModel.text("round two"),
      ],
    });
    const tick = new ScriptAgent({ name: "tick", steps: [say("tick")] });
    const app = await resumableApp(
      new LoopAgent({
        name: "loop",
        maxIterations: 2,
        subAgents: [new LlmAgent({ name: "worker", model, tools: [askTool()] }), tick],
      }),
    );
    await app.send("go");
    expect(tick.seen).toHaveLength(0);
    const after = await app.answer("c1", "ask_human", { ok: true });
    expect(after.filter((e) => e.content).map((e) => e.content!.parts![0]!.text)).toEqual([
      "got it",
      "tick",
      "round two",
      "tick",
    ]);
    model.assertConsumed();
  });

  it("ParallelAgent: the other branches finish, only the paused one continues", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("ask_human", {}, "c1"), ScriptedModel.text("answered")],
    });
    const other = new ScriptAgent({ name: "other", steps: [say("other done")] });
    const app = await resumableApp(
      new ParallelAgent({
        name: "fan",
        subAgents: [new LlmAgent({ name: "asker", model, tools: [askTool()] }), other],
      }),
    );
    await app.send("go");
    expect(other.seen).toHaveLength(1);
    const after = await app.answer("c1", "ask_human", {});
    expect(after.filter((e) => e.content).map((e) => [e.author, e.branch])).toEqual([["asker", "fan.asker"]]);
    expect(other.seen).toHaveLength(1);
  });

  it("a new message that answers nothing starts a new run", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("ask_human", {}, "c1"), ScriptedModel.text("fresh")],
    });
    const first = new ScriptAgent({ name: "first", steps: [say("1")] });
    const app = await resumableApp(
      new SequentialAgent({
        name: "seq",
        subAgents: [first, new LlmAgent({ name: "asker", model, tools: [askTool()] })],
      }),
    );
    await app.send("go");
    await app.send("something else");
    expect(first.seen).toHaveLength(2);
  });
});

describe("resumable apps: workflows", () => {
  it("a function node asks for input (request_input); the answer is its output and the graph goes on", async () => {
    let prepared = 0;
    const prepare = new FunctionNode("prepare", () => {
      prepared++;
      return { amount: 120 };
    });
    const approve = new FunctionNode("approve", (ctx, order: { amount: number }) =>
      ctx.requestInput({
        message: `Approve a payment of ${order.amount}?`,
        payload: order,
        responseSchema: z.object({ approved: z.boolean() }),
      }),
    );
    const decide = new FunctionNode("decide", (ctx, answer: { approved: boolean }) => {
      ctx.route = answer.approved ? "yes" : "no";
      return answer;
    });
    const pay = new FunctionNode("pay", () => "paid");
    const cancel = new FunctionNode("cancel", () => "cancelled");
    const app = await resumableApp(
      new Workflow({ name: "payment", edges: [["START", prepare, approve, decide, { yes: pay, no: cancel }]] }),
    );

    const first = await app.send("pay the invoice");
    const request = pendingCall(first);
    expect(request.name).toBe(REQUEST_INPUT_FUNCTION_CALL_NAME);
    expect(request.args).toMatchObject({
      message: "Approve a payment of 120?",
      payload: { amount: 120 },
      response_schema: { type: "object", properties: { approved: { type: "boolean" } } },
    });
    const requestEvent = first.find((e) => getFunctionCalls(e)[0]?.id === request.id)!;
    expect(requestEvent.actions.requestedInputs![request.id!]).toMatchObject({ message: "Approve a payment of 120?" });

    const second = await app.answer(request.id!, REQUEST_INPUT_FUNCTION_CALL_NAME, { approved: true });
    expect(outputs(second)).toEqual([
      ["approve", { approved: true }],
      ["decide", { approved: true }],
      ["pay", "paid"],
    ]);
    expect(prepared).toBe(1);
  });

  it("a rerunOnResume node runs again and reads ctx.resumeInputs", async () => {
    const review = new FunctionNode(
      "review",
      (ctx) => {
        const answer = ctx.resumeInputs.review as string | undefined;
        if (answer === undefined) return ctx.requestInput({ interruptId: "review", message: "Looks good?" });
        return `reviewer said ${answer}`;
      },
      { rerunOnResume: true },
    );
    const app = await resumableApp(new Workflow({ name: "w", edges: [["START", review]] }));
    await app.send("draft");
    const after = await app.answer("review", REQUEST_INPUT_FUNCTION_CALL_NAME, { result: "ship it" });
    expect(outputs(after)).toEqual([["review", "reviewer said ship it"]]);
  });

  it("nested workflows: the inner pause pauses the outer; on resume only the paused path continues", async () => {
    const counts: Record<string, number> = {};
    const count = (name: string) => (counts[name] = (counts[name] ?? 0) + 1);
    const prep = new FunctionNode("prep", () => {
      count("prep");
      return "prepped";
    });
    const ask = new FunctionNode("ask", (ctx) => {
      count("ask");
      return ctx.requestInput({ message: "name?" });
    });
    const greet = new FunctionNode("greet", (_c, name: string) => {
      count("greet");
      return `hello ${name}`;
    });
    const inner = new Workflow({ name: "inner", edges: [["START", ask, greet]] });
    const done = new FunctionNode("done", (_c, text: string) => {
      count("done");
      return `${text}!`;
    });
    const app = await resumableApp(new Workflow({ name: "outer", edges: [["START", prep, inner, done]] }));
    const first = await app.send("go");
    const request = pendingCall(first);
    expect(first.find((e) => e.id && getFunctionCalls(e)[0]?.id === request.id)!.nodeInfo!.path).toBe(
      "outer/inner@1/ask@1",
    );
    const second = await app.answer(request.id!, REQUEST_INPUT_FUNCTION_CALL_NAME, { result: "Ada" });
    expect(outputs(second)).toEqual([
      ["ask", "Ada"],
      ["greet", "hello Ada"],
      ["inner", "hello Ada"],
      ["done", "hello Ada!"],
    ]);
    expect(counts).toEqual({ prep: 1, ask: 1, greet: 1, done: 1 });
  });

  it("parallel paths: a join waits for the paused path", async () => {
    const ask = new FunctionNode("ask", (ctx) => ctx.requestInput({ message: "color?" }));
    const compute = new FunctionNode("compute", () => 42);
    const join = new JoinNode({ name: "join" });
    const app = await resumableApp(new Workflow({ name: "w", edges: [["START", [ask, compute], join]] }));
    const first = await app.send("go");
    expect(outputs(first)).toEqual([["compute", 42]]);
    const second = await app.answer(pendingCall(first).id!, REQUEST_INPUT_FUNCTION_CALL_NAME, { result: "blue" });
    expect(outputs(second)).toEqual([
      ["ask", "blue"],
      ["join", { ask: "blue", compute: 42 }],
    ]);
  });

  it("a tool node that needs confirmation pauses; approved, the tool runs once and its result flows on", async () => {
    let transfers = 0;
    const transfer = new FunctionTool({
      name: "transfer",
      description: "moves money",
      parameters: z.object({ amount: z.number() }),
      requireConfirmation: true,
      execute: ({ amount }) => {
        transfers++;
        return { done: true, amount };
      },
    });
    const order = new FunctionNode("order", () => ({ amount: 10 }));
    const receipt = new FunctionNode("receipt", (_c, r: { amount: number }) => `sent ${r.amount}`);
    const app = await resumableApp(new Workflow({ name: "bank", edges: [["START", order, transfer, receipt]] }));
    const first = await app.send("go");
    const request = pendingCall(first);
    expect(request.name).toBe(REQUEST_CONFIRMATION_FUNCTION_CALL_NAME);
    expect(transfers).toBe(0);
    const second = await app.answer(request.id!, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, { confirmed: true });
    expect(transfers).toBe(1);
    expect(outputs(second)).toEqual([
      ["transfer", { done: true, amount: 10 }],
      ["receipt", "sent 10"],
    ]);
  });

  it("an LLM agent node's confirmation resumes the agent, then the workflow", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("delete_all", {}, "d1"), ScriptedModel.text("deleted")],
    });
    const deleteAll = new FunctionTool({
      name: "delete_all",
      description: "deletes",
      requireConfirmation: true,
      execute: () => "ok",
    });
    const report = new FunctionNode("report", (_c, text: string) => `report: ${text}`);
    const app = await resumableApp(
      new Workflow({
        name: "w",
        edges: [["START", new LlmAgent({ name: "janitor", model, tools: [deleteAll] }), report]],
      }),
    );
    const first = await app.send("clean up");
    const second = await app.answer(pendingCall(first).id!, REQUEST_CONFIRMATION_FUNCTION_CALL_NAME, {
      confirmed: true,
    });
    expect(outputs(second)).toEqual([
      ["janitor", "deleted"],
      ["report", "report: deleted"],
    ]);
  });
});

describe("resumable apps: interrupted runs", () => {
  it("runner.resume continues after a failure: completed nodes are not run again", async () => {
    let fetches = 0;
    let failOnce = true;
    const fetch = new FunctionNode("fetch", () => {
      fetches++;
      return "data";
    });
    const flaky = new FunctionNode("process", (_c, input: string) => {
      if (failOnce) {
        failOnce = false;
        throw new Error("service down");
      }
      return `${input} processed`;
    });
    const app = await resumableApp(new Workflow({ name: "etl", edges: [["START", fetch, flaky]] }));
    await expect(app.send("go")).rejects.toThrow("service down");
    const resumed = await app.resume();
    expect(outputs(resumed)).toEqual([["process", "data processed"]]);
    expect(fetches).toBe(1);
    await expect(app.resume()).rejects.toBeInstanceOf(NothingToResumeError);
  });

  it("a tool call cut off before it returned is reported on resume, never run again", async () => {
    let calls = 0;
    const controller = new AbortController();
    const charge = new FunctionTool({
      name: "charge",
      description: "charges a card",
      execute: async () => {
        calls++;
        controller.abort(); // the process "dies" while the call is in flight
        await new Promise((r) => setTimeout(r, 5));
        return "charged";
      },
    });
    const start = new FunctionNode("start", () => ({}));
    const handle = new FunctionNode("handle", (_c, input: { error: { code: string } }) => input.error.code);
    const app = await resumableApp(
      new Workflow({
        name: "pay",
        edges: [
          ["START", start, charge],
          [charge, { [ERROR_ROUTE]: handle }],
        ],
      }),
    );
    await expect(app.send("go", controller.signal)).rejects.toBeInstanceOf(RunAbortedError);
    const resumed = await app.resume();
    expect(calls).toBe(1);
    expect(outputs(resumed)).toEqual([["handle", "NODE_INTERRUPTED"]]);
  });

  it("needs resumability, and an answer must match a recorded input request", async () => {
    const ask = new FunctionNode("ask", (ctx) => ctx.requestInput({ message: "?" }));
    const plain = new InMemoryRunner({ agent: new Workflow({ name: "w", edges: [["START", ask]] }), appName: "app" });
    await plain.sessionService.createSession({ appName: "app", userId: "u", sessionId: "s" });
    const run = async () => {
      for await (const _ of plain.runAsync({ userId: "u", sessionId: "s", newMessage: "go" }));
    };
    await expect(run()).rejects.toThrow(/needs a resumable app/);
    await expect(async () => {
      for await (const _ of plain.resume({ userId: "u", sessionId: "s" }));
    }).rejects.toBeInstanceOf(NotResumableError);

    const app = await resumableApp(
      new Workflow({ name: "w2", edges: [["START", new FunctionNode("ask", (ctx) => ctx.requestInput())]] }),
    );
    await app.send("go");
    // A request event without the flow's record (e.g. imported history) is not answerable.
    const session = await app.session();
    await app.runner.sessionService.appendEvent({
      session,
      event: createEvent({
        invocationId: "e-forged",
        author: "ask",
        content: {
          role: "model",
          parts: [{ functionCall: { id: "forged", name: REQUEST_INPUT_FUNCTION_CALL_NAME, args: {} } }],
        },
        longRunningToolIds: ["forged"],
      }),
    });
    await expect(app.answer("forged", REQUEST_INPUT_FUNCTION_CALL_NAME, { result: "x" })).rejects.toBeInstanceOf(
      InvalidUserMessageError,
    );
  });
});
