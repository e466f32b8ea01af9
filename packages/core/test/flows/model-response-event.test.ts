import {
  createEvent,
  createEventActions,
  FunctionTool,
  InMemorySessionService,
  InvocationContext,
  LlmAgent,
  PluginManager,
  type Event,
  type EventActions,
  type LlmResponse,
  type Session,
} from "../../src/index.js";
import { createModelResponseEvent, executeFunctionCalls } from "../../src/internal.js";

/** Every response field the event carries, each set. */
const FULL: LlmResponse = {
  content: { role: "model", parts: [{ text: "hi" }, { functionCall: { id: "c1", name: "t", args: { a: 1 } } }] },
  partial: false,
  turnComplete: true,
  finishReason: "STOP",
  usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
  errorCode: "E",
  errorMessage: "m",
  groundingMetadata: { g: 1 },
  citationMetadata: { c: 1 },
  customMetadata: { own: true },
  modelVersion: "v1",
  avgLogprobs: -0.5,
  logprobsResult: { l: 1 },
  cacheMetadata: { cache: "x" },
  interrupted: false,
  inputTranscription: { text: "in", finished: true },
  outputTranscription: { text: "out", finished: false },
  liveSessionResumptionUpdate: { handle: "h" },
};

/** The event through createEvent with the init that names every field (undefined where the response has none). */
function reference(
  ctx: InvocationContext,
  agent: LlmAgent,
  r: LlmResponse,
  actions: EventActions | undefined,
  id: string | undefined,
) {
  const customMetadata =
    ctx.runConfig.customMetadata || r.customMetadata
      ? { ...ctx.runConfig.customMetadata, ...r.customMetadata }
      : undefined;
  return createEvent({
    id,
    invocationId: ctx.invocationId,
    author: agent.name,
    branch: ctx.branch,
    content: r.content,
    partial: r.partial,
    turnComplete: r.turnComplete,
    finishReason: r.finishReason,
    usageMetadata: r.usageMetadata,
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    groundingMetadata: r.groundingMetadata,
    citationMetadata: r.citationMetadata,
    customMetadata,
    modelVersion: r.modelVersion,
    avgLogprobs: r.avgLogprobs,
    logprobsResult: r.logprobsResult,
    cacheMetadata: r.cacheMetadata,
    interrupted: r.interrupted,
    inputTranscription: r.inputTranscription,
    outputTranscription: r.outputTranscription,
    liveSessionResumptionUpdate: r.liveSessionResumptionUpdate,
    actions,
  });
}

/** An invocation of `agent` on `session`, on `branch`, with the run's custom metadata. */
function contextFor(
  agent: LlmAgent,
  sessionService: InMemorySessionService,
  session: Session,
  branch: string | undefined,
  runCustom?: Record<string, unknown>,
): InvocationContext {
  return new InvocationContext({
    invocationId: "e-1",
    agent,
    session,
    sessionService,
    pluginManager: new PluginManager(),
    branch,
    runConfig: runCustom ? { customMetadata: runCustom } : undefined,
  });
}

/** Keys in order and values, the timestamp left out (the two events are made at different times). */
function shape(event: Event): string {
  const { timestamp, ...rest } = event;
  expect(typeof timestamp).toBe("number");
  return JSON.stringify([Object.keys(event), rest]);
}

describe("createModelResponseEvent", () => {
  it("gives the same event, keys in the same order, as the init naming every response field", async () => {
    const agent = new LlmAgent({ name: "a", model: "gemini-2.0-flash" });
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    const actions = { ...createEventActions(), stateDelta: { k: 1 }, escalate: true };
    const responses: LlmResponse[] = [
      FULL,
      {},
      { content: { role: "model", parts: [{ text: "only text" }] } },
      { errorCode: "X", errorMessage: "failed" },
      { partial: true, content: { role: "model", parts: [{ text: "chunk" }] }, customMetadata: { c: 2 } },
    ];
    for (const runCustom of [undefined, { run: 1, own: false }]) {
      for (const branch of [undefined, "a.b"]) {
        const ctx = contextFor(agent, sessionService, session, branch, runCustom);
        for (const response of responses) {
          for (const withActions of [undefined, actions]) {
            const made = createModelResponseEvent(ctx, agent, response, {}, withActions, "id-1");
            const expected = reference(ctx, agent, response, withActions, "id-1");
            expect(shape(made)).toBe(shape(expected));
            // The event owns its content and actions: editing them leaves the response and the step's actions alone.
            if (made.content) expect(made.content).not.toBe(response.content);
            if (withActions) expect(made.actions).not.toBe(withActions);
            // Without the callbacks' id the event gets a new one, still the first key.
            const fresh = createModelResponseEvent(ctx, agent, response, {}, withActions);
            const freshExpected = reference(ctx, agent, response, withActions, undefined);
            expect(Object.keys(fresh)).toEqual(Object.keys(freshExpected));
            expect(fresh.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
            expect(fresh.id).not.toBe(freshExpected.id);
            expect({ ...fresh, id: "", timestamp: 0 }).toEqual({ ...freshExpected, id: "", timestamp: 0 });
          }
        }
      }
    }
  });
});

describe("executeFunctionCalls' response event", () => {
  it("has the keys, in order, and values of the init naming every field", async () => {
    const tool = new FunctionTool({
      name: "echo",
      description: "echoes",
      execute: async (args: { v?: number }, context) => {
        if (args.v === 2) context.state.set("seen", true);
        return { v: args.v };
      },
    });
    const agent = new LlmAgent({ name: "a", model: "gemini-2.0-flash", tools: [tool] });
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    for (const branch of [undefined, "a.b"]) {
      const ctx = contextFor(agent, sessionService, session, branch);
      // One call without effects, one that changes state (actions with a delta).
      for (const v of [1, 2]) {
        const { event } = await executeFunctionCalls(ctx, agent, [{ id: "c1", name: "echo", args: { v } }], {
          echo: tool,
        });
        if (!event) throw new Error("no response event");
        const expected = createEvent({
          invocationId: ctx.invocationId,
          author: agent.name,
          branch: ctx.branch,
          content: event.content,
          actions: event.actions,
        });
        expect(Object.keys(event)).toEqual(Object.keys(expected));
        expect(Object.keys(event)).toEqual([
          "invocationId",
          "author",
          ...(branch ? ["branch"] : []),
          "content",
          "actions",
          "id",
          "timestamp",
        ]);
        expect(event.content).toEqual({
          role: "user",
          parts: [{ functionResponse: { id: "c1", name: "echo", response: { v } } }],
        });
        expect(event.actions.stateDelta).toEqual(v === 2 ? { seen: true } : {});
      }
    }
  });
});
