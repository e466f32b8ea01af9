// A session's first request (a history of one event) is built without the runner's contents memo;
// later requests use it. Every request must still be the full build of the history it saw.
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

describe("a session's first request", () => {
  it("and every later one is the full build of the history it saw", async () => {
    const { model, run } = await setUp(false);
    for (let i = 0; i < 4; i++) await run(`q${i}`);
    expect(model.calls).toBe(8);
    expect(model.problems).toEqual([]);
  });

  it("leaves no memo in the runner's cache; the session's next request makes one", async () => {
    const { model, runner, run } = await setUp(true);
    await run("first");
    expect(model.calls).toBe(1);
    expect(runner.contentsCache.size).toBe(0);
    await run("second");
    expect(model.calls).toBe(2);
    expect(runner.contentsCache.size).toBe(1);
    await run("third");
    expect(model.problems).toEqual([]);
  });
});
