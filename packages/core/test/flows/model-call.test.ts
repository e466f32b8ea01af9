// A model call's responses come from an iterator that must behave as the async generator it
// replaced: the model's stream is closed (its generator's `finally` runs) whenever the call ends
// before the stream does, by an early stop of the flow, an abort, or a failing callback; and a
// stream that ends by itself is not closed a second time.
import { describe, expect, it } from "@jest/globals";
import {
  BaseLlm,
  BasePlugin,
  LlmAgent,
  PluginError,
  RunAbortedError,
  StreamingMode,
  type AfterModelHookArgs,
  type LlmRequest,
  type LlmResponse,
} from "../../src/index.js";
import { Harness, texts } from "./helpers.js";

/** Yields its responses in order, counting what it produced and how its generator ended. */
class StreamModel extends BaseLlm {
  produced = 0;
  finallyRan = 0;
  returned = false;
  private readonly responses: LlmResponse[];
  private readonly beforeEach?: (index: number) => void;

  constructor(responses: LlmResponse[], beforeEach?: (index: number) => void) {
    super({ model: "stream-model" });
    this.responses = responses;
    this.beforeEach = beforeEach;
  }

  override async *generateContentAsync(_request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    let completed = false;
    try {
      for (let i = 0; i < this.responses.length; i++) {
        this.beforeEach?.(i);
        this.produced++;
        yield this.responses[i]!;
      }
      completed = true;
    } finally {
      this.finallyRan++;
      this.returned = !completed;
    }
  }
}

const call: LlmResponse = {
  content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { q: "x" } } }] },
};
const partial = (text: string): LlmResponse => ({ content: { role: "model", parts: [{ text }] }, partial: true });
const complete = (text: string): LlmResponse => ({ content: { role: "model", parts: [{ text }] } });

describe("a model call's stream", () => {
  it("ends by itself: the generator finishes once and is not closed again", async () => {
    const model = new StreamModel([complete("done")]);
    const h = await Harness.create();
    expect(texts(await h.run(new LlmAgent({ name: "a", model }), "hi"))).toEqual(["done"]);
    expect(model.finallyRan).toBe(1);
    expect(model.returned).toBe(false);
  });

  it("is closed when the flow stops after a response (a paused tool call), without asking for more", async () => {
    const model = new StreamModel([call, complete("never asked for")]);
    const h = await Harness.create();
    const events = await h.run(new LlmAgent({ name: "a", model }), "hi", { runConfig: { pauseOnToolCalls: true } });
    expect(events).toHaveLength(1);
    expect(events[0]!.content?.parts?.[0]?.functionCall?.name).toBe("lookup");
    expect(model.produced).toBe(1);
    expect(model.finallyRan).toBe(1);
    expect(model.returned).toBe(true);
  });

  it("is closed when the run is aborted between streamed chunks, and the abort propagates", async () => {
    const controller = new AbortController();
    // The second chunk is asked for after the abort: the call stops at it and closes the stream.
    const model = new StreamModel([partial("a"), partial("b"), complete("ab")], (i) => {
      if (i === 1) controller.abort();
    });
    const h = await Harness.create();
    const run = h.run(new LlmAgent({ name: "a", model }), "hi", {
      signal: controller.signal,
      runConfig: { streamingMode: StreamingMode.SSE },
    });
    await expect(run).rejects.toBeInstanceOf(RunAbortedError);
    expect(model.produced).toBe(2);
    expect(model.finallyRan).toBe(1);
    expect(model.returned).toBe(true);
  });

  it("is closed when an after-model plugin throws, and the plugin's error propagates", async () => {
    class Failing extends BasePlugin {
      constructor() {
        super("failing");
      }
      override afterModelCallback({ response }: AfterModelHookArgs): undefined {
        if (response.partial) throw new Error("boom");
        return undefined;
      }
    }
    const model = new StreamModel([partial("a"), complete("a")]);
    const h = await Harness.create();
    const run = h.run(new LlmAgent({ name: "a", model }), "hi", {
      plugins: [new Failing()],
      runConfig: { streamingMode: StreamingMode.SSE },
    });
    await expect(run).rejects.toBeInstanceOf(PluginError);
    await expect(run).rejects.toThrow(/boom/);
    expect(model.produced).toBe(1);
    expect(model.finallyRan).toBe(1);
    expect(model.returned).toBe(true);
  });

  it("is closed when an after-model callback that answers later rejects", async () => {
    const model = new StreamModel([partial("a"), complete("a")]);
    const agent = new LlmAgent({
      name: "a",
      model,
      afterModelCallback: async () => {
        await Promise.resolve();
        throw new Error("late failure");
      },
    });
    const h = await Harness.create();
    await expect(h.run(agent, "hi", { runConfig: { streamingMode: StreamingMode.SSE } })).rejects.toThrow(
      "late failure",
    );
    expect(model.produced).toBe(1);
    expect(model.finallyRan).toBe(1);
  });

  it("a failing stream's stand-in is handed out, and the run goes on to the end", async () => {
    class Broken extends BaseLlm {
      finallyRan = 0;
      constructor() {
        super({ model: "broken" });
      }
      override async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
        try {
          yield partial("half");
          throw Object.assign(new Error("stream cut"), { code: "STREAM_CUT" });
        } finally {
          this.finallyRan++;
        }
      }
    }
    const model = new Broken();
    const h = await Harness.create();
    const events = await h.run(new LlmAgent({ name: "a", model }), "hi", {
      runConfig: { streamingMode: StreamingMode.SSE },
    });
    expect(events.map((e) => [e.partial ?? false, e.errorCode])).toEqual([
      [true, undefined],
      [false, "STREAM_CUT"],
    ]);
    expect(events[1]!.errorMessage).toBe("stream cut");
    expect(model.finallyRan).toBe(1);
  });
});
