// A short session's requests (a history under MEMO_FROM_EVENTS) are built without the runner's
// contents memo; longer ones use it. Every request must still be the full build of the history it saw.
import { describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  Runner,
  type LlmRequest,
  type LlmResponse,
} from "../../src/index.js";
import { getContents } from "../../src/internal.js";
import { MEMO_FROM_EVENTS } from "../../src/flows/request-builder.js";

/** Calls `lookup` on a user turn, answers text after a tool response; checks each request against a full build. */
class CheckingModel extends BaseLlm {
  readonly problems: string[] = [];
  calls = 0;

  constructor(
    private readonly history: () => Promise<Parameters<typeof getContents>[1]>,
    private readonly direct: boolean,
  ) {
    super({ model: "checking" });
  }

  override get readsContentsOnly(): boolean {
    return true;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    this.calls++;
    const seen = JSON.stringify(request.contents);
    const full = JSON.stringify(getContents(undefined, await this.history(), "root"));
    if (seen !== full) this.problems.push(`call ${this.calls}: ${seen} !== ${full}`);
    const last = request.contents.at(-1);
    yield this.direct || last?.parts?.some((p) => p.functionResponse)
      ? { content: { role: "model", parts: [{ text: `answer ${this.calls}` }] } }
      : { content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { n: this.calls } } }] } };
  }
}

/** `direct`: the model answers every request with text (one request per run). */
async function setUp(direct: boolean) {
  const sessionService = new InMemorySessionService();
  const session = await sessionService.createSession({ appName: "app", userId: "u" });
  const history = async () =>
    (await sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id }))!.events;
  const model = new CheckingModel(history, direct);
  const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ ok: true }) });
  const agent = new LlmAgent({ name: "root", model, tools: [lookup] });
  const runner = new Runner({ appName: "app", agent, sessionService });
  const run = async (text: string) => {
    for await (const _ of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text }] },
    }))
      void _;
  };
  return { model, runner, run };
}

describe("a short session's requests", () => {
  it("and every later one are the full build of the history they saw", async () => {
    const { model, run } = await setUp(false);
    // 4 events a run (user, call, response, answer): well past the memo's floor.
    const runs = Math.ceil((2 * MEMO_FROM_EVENTS) / 4);
    for (let i = 0; i < runs; i++) await run(`q${i}`);
    expect(model.calls).toBe(2 * runs);
    expect(model.problems).toEqual([]);
  });

  it("leave no memo in the runner's cache until the history reaches MEMO_FROM_EVENTS", async () => {
    const { model, runner, run } = await setUp(true);
    // 2 events a run (user, answer): the request of run n sees 2n - 1 events.
    let runs = 0;
    while (2 * (runs + 1) - 1 < MEMO_FROM_EVENTS) {
      await run(`q${runs++}`);
      expect(runner.contentsCache.size).toBe(0);
    }
    await run(`q${runs++}`);
    expect(runner.contentsCache.size).toBe(1);
    expect(model.calls).toBe(runs);
    await run("after");
    expect(runner.contentsCache.size).toBe(1);
    expect(model.problems).toEqual([]);
  });
});
