import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { RetryingModel } from "../../src/retry/retrying-model.js";
import {
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  StreamingMode,
  getTextOf,
  type BaseLlm,
  type Event,
  type RunConfig,
} from "@agentkit/core";
import { collect } from "@agentkit/test-support/collect";

/** A provider-neutral model turn: text, or tool calls. */
export type ScriptedTurn =
  | { text: string }
  | { rateLimited: true }
  | { toolCalls: Array<{ id: string; name: string; args: Record<string, unknown> }> };

/** What a provider adapter gives the suite: the model, a way to script turns, and the recorded request bodies. */
export interface ConformanceTarget {
  model: BaseLlm;
  script(...turns: ScriptedTurn[]): void;
  /**
   * Scripts one streamed text answer sent as these chunks (usage 10 in / 5 out), in the
   * provider's SSE framing. Optional so that a new target compiles before it streams; the
   * streaming scenario fails for a target without it.
   */
  scriptStream?(chunks: string[]): void;
  bodies(): Array<Record<string, unknown>>;
  /**
   * Checks every request the scenario sent (e.g. a gateway's custom header, the endpoint path);
   * throws when one is wrong. Runs after each scenario, before `close`.
   */
  verifyRequests?(): void;
  close(): Promise<void>;
}

/**
 * The text of every function response in a request body, whichever wire format carries it:
 * OpenAI chat `role: "tool"` messages, Responses `function_call_output` items, Anthropic
 * `tool_result` blocks, Gemini `functionResponse` parts.
 */
export function functionResponsesIn(body: Record<string, unknown>): string[] {
  const found: string[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (node === null || typeof node !== "object") return;
    const record = node as Record<string, unknown>;
    if (record.role === "tool" || record.type === "function_call_output" || record.type === "tool_result") {
      found.push(JSON.stringify(record.content ?? record.output));
      return;
    }
    if (record.functionResponse !== undefined) {
      found.push(JSON.stringify((record.functionResponse as Record<string, unknown>).response));
      return;
    }
    Object.values(record).forEach(visit);
  };
  visit(body);
  return found;
}

/** Runs the same agent scenarios on one adapter through LlmAgent + InMemoryRunner. */
export function runModelConformance(name: string, setup: () => Promise<ConformanceTarget>): void {
  describe(`model conformance: ${name}`, () => {
    let target: ConformanceTarget;
    beforeEach(async () => {
      target = await setup();
    });
    afterEach(async () => {
      try {
        target.verifyRequests?.();
      } finally {
        await target.close();
      }
    });

    function run(agent: LlmAgent, text: string, runConfig: RunConfig = {}): Promise<Event[]> {
      const runner = new InMemoryRunner({ agent, appName: "app" });
      return collect(
        runner.runAsync({
          userId: "u",
          sessionId: "s",
          newMessage: text,
          runConfig: { autoCreateSession: true, ...runConfig },
        }),
      );
    }

    it("answers in plain text", async () => {
      target.script({ text: "Hello from the model." });
      const events = await run(new LlmAgent({ name: "a", model: target.model }), "Hi");
      expect(getTextOf(events.at(-1)!.content)).toBe("Hello from the model.");
    });

    it("calls a tool and feeds its result back to the provider", async () => {
      const tool = new FunctionTool({
        name: "lookup",
        description: "Looks up a code",
        parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        execute: (args) => ({ value: `secret-${String(args.key)}` }),
      });
      target.script({ toolCalls: [{ id: "c1", name: "lookup", args: { key: "k9" } }] }, { text: "Done." });
      const events = await run(new LlmAgent({ name: "a", model: target.model, tools: [tool] }), "Look up k9");
      expect(getTextOf(events.at(-1)!.content)).toBe("Done.");
      expect(target.bodies()).toHaveLength(2);
      expect(JSON.stringify(target.bodies()[1])).toContain("secret-k9");
    });
    it("runs two parallel tool calls and returns the results in call order", async () => {
      const tool = new FunctionTool({
        name: "lookup",
        description: "Looks up a code",
        parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        execute: (args) => ({ value: `secret-${String(args.key)}` }),
      });
      target.script(
        {
          toolCalls: [
            { id: "c1", name: "lookup", args: { key: "first" } },
            { id: "c2", name: "lookup", args: { key: "second" } },
          ],
        },
        { text: "Both." },
      );
      const events = await run(new LlmAgent({ name: "a", model: target.model, tools: [tool] }), "Look up two");
      expect(getTextOf(events.at(-1)!.content)).toBe("Both.");
      const second = JSON.stringify(target.bodies()[1]);
      expect(second.indexOf("secret-first")).toBeGreaterThan(-1);
      expect(second.indexOf("secret-first")).toBeLessThan(second.indexOf("secret-second"));
    });

    it("answers an unknown tool name with an error response and continues the run", async () => {
      target.script({ toolCalls: [{ id: "c1", name: "no_such_tool", args: {} }] }, { text: "Recovered." });
      const events = await run(new LlmAgent({ name: "a", model: target.model }), "Go");
      expect(getTextOf(events.at(-1)!.content)).toBe("Recovered.");
      // The model's own call is echoed in the second request too, so look only at the function
      // response the framework sent back: one, an error that names the unknown tool.
      const responses = functionResponsesIn(target.bodies()[1]!);
      expect(responses).toHaveLength(1);
      expect(responses[0]).toContain("error");
      expect(responses[0]).toMatch(/no_such_tool.{0,2} not found/);
    });
    it("reports usage on the final event", async () => {
      target.script({ text: "Counted." });
      const events = await run(new LlmAgent({ name: "a", model: target.model }), "Hi");
      expect(events.at(-1)!.usageMetadata?.promptTokenCount).toBe(10);
      expect(events.at(-1)!.usageMetadata?.candidatesTokenCount).toBe(5);
    });

    it("retries a 429 (Retry-After: 0) through RetryingModel and then succeeds", async () => {
      target.script({ rateLimited: true }, { text: "After retry." });
      const model = new RetryingModel(target.model);
      const events = await run(new LlmAgent({ name: "a", model }), "Hi");
      expect(getTextOf(events.at(-1)!.content)).toBe("After retry.");
      expect(target.bodies()).toHaveLength(2);
    });

    it("streams partials whose concatenation equals the final text (SSE mode)", async () => {
      if (target.scriptStream === undefined)
        throw new Error(`The ${name} conformance target has no scriptStream: add the provider's SSE transcript.`);
      target.scriptStream(["The answer ", "is ", "forty-", "two."]);
      const events = await run(new LlmAgent({ name: "a", model: target.model }), "Hi", {
        streamingMode: StreamingMode.SSE,
      });
      const modelEvents = events.filter((e) => e.author === "a");
      const partials = modelEvents.filter((e) => e.partial === true);
      const final = modelEvents.at(-1)!;
      expect(partials.length).toBeGreaterThanOrEqual(2);
      expect(final.partial).toBeFalsy();
      expect(getTextOf(final.content)).toBe("The answer is forty-two.");
      expect(partials.map((e) => getTextOf(e.content)).join("")).toBe(getTextOf(final.content));
      expect(final.usageMetadata?.promptTokenCount).toBe(10);
    });

    it("gives structured output through set_model_response after using a tool", async () => {
      const tool = new FunctionTool({
        name: "lookup",
        description: "Looks up a code",
        parameters: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        execute: (args) => ({ value: `secret-${String(args.key)}` }),
      });
      const outputSchema = {
        type: "object",
        properties: { code: { type: "string" }, length: { type: "integer" } },
        required: ["code", "length"],
      };
      target.script(
        { toolCalls: [{ id: "c1", name: "lookup", args: { key: "k9" } }] },
        { toolCalls: [{ id: "c2", name: "set_model_response", args: { code: "secret-k9", length: 9 } }] },
      );
      const agent = new LlmAgent({ name: "a", model: target.model, tools: [tool], outputSchema, outputKey: "answer" });
      const events = await run(agent, "Look up k9 and report it");
      const final = events.at(-1)!;
      expect(JSON.parse(getTextOf(final.content))).toEqual({ code: "secret-k9", length: 9 });
      expect(events.find((e) => e.actions.stateDelta.answer !== undefined)?.actions.stateDelta.answer).toEqual({
        code: "secret-k9",
        length: 9,
      });
      const bodies = target.bodies();
      expect(bodies).toHaveLength(2);
      // Both tools were offered, with the output schema as set_model_response's parameters.
      expect(JSON.stringify(bodies[0])).toContain("set_model_response");
      expect(JSON.stringify(bodies[0])).toContain("lookup");
      expect(JSON.stringify(bodies[1])).toContain("secret-k9");
    });
  });
}
