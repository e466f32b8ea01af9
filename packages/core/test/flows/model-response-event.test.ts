import {
  createEvent,
  createEventActions,
  InMemorySessionService,
  InvocationContext,
  LlmAgent,
  PluginManager,
  type Event,
  type EventActions,
  type LlmResponse,
} from "../../src/index.js";
import { createModelResponseEvent } from "../../src/internal.js";

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
  id: string,
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
        const ctx = new InvocationContext({
          invocationId: "e-1",
          agent,
          session,
          sessionService,
          pluginManager: new PluginManager(),
          branch,
          runConfig: runCustom ? { customMetadata: runCustom } : undefined,
        });
        for (const response of responses) {
          for (const withActions of [undefined, actions]) {
            const made = createModelResponseEvent(ctx, agent, response, {}, withActions, "id-1");
            const expected = reference(ctx, agent, response, withActions, "id-1");
            expect(shape(made)).toBe(shape(expected));
            // The event owns its content and actions: editing them leaves the response and the step's actions alone.
            if (made.content) expect(made.content).not.toBe(response.content);
            if (withActions) expect(made.actions).not.toBe(withActions);
          }
        }
      }
    }
  });
});
