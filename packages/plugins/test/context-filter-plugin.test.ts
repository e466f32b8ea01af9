import { describe, expect, it } from "@jest/globals";
import {
  BasePlugin,
  ConfigurationError,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  type CallbackContext,
  type Content,
  type LlmRequest,
} from "@agentkit/core";
import { ContentsProbeModel, ScriptedModel } from "@agentkit/core/testing";
import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { z } from "zod";
import { ContextFilterPlugin, filterContents } from "../src/index.js";
import { runOnce } from "./helpers.js";

const user = (text: string): Content => ({ role: "user", parts: [{ text }] });
const model = (text: string): Content => ({ role: "model", parts: [{ text }] });
const call = (id: string, name = "tool"): Content => ({
  role: "model",
  parts: [{ functionCall: { id, name, args: {} } }],
});
const response = (id: string, name = "tool"): Content => ({
  role: "user",
  parts: [{ functionResponse: { id, name, response: { ok: true } } }],
});

describe("filterContents", () => {
  it("keeps the last N invocations, counting only typed user turns", async () => {
    const contents = [user("1"), model("a"), user("2"), call("c1"), response("c1"), model("b"), user("3"), model("c")];
    expect(await filterContents(contents, 2, undefined)).toEqual([
      user("2"),
      call("c1"),
      response("c1"),
      model("b"),
      user("3"),
      model("c"),
    ]);
    expect(await filterContents(contents, 1, undefined)).toEqual([user("3"), model("c")]);
    expect(await filterContents(contents, 5, undefined)).toEqual(contents);
  });

  it("never leaves a call without its response or a response without its call", async () => {
    const contents = [
      user("1"),
      call("c1"),
      response("c1"),
      model("a"),
      user("2"),
      call("c2"),
      response("c2"),
      call("c3"),
    ];
    // A custom filter that cuts blindly in the middle of pairs.
    const filtered = await filterContents(contents, undefined, (cs) =>
      cs.filter(
        (c) =>
          c !== call("c1") &&
          !(c.parts?.[0]?.functionCall?.id === "c1") &&
          !(c.parts?.[0]?.functionResponse?.id === "c2"),
      ),
    );
    expect(filtered).toEqual([user("1"), model("a"), user("2"), call("c3")]);
  });

  it("keeps parallel calls paired by id, dropping only the unpaired part", async () => {
    const parallel: Content = {
      role: "model",
      parts: [{ functionCall: { id: "p1", name: "a", args: {} } }, { functionCall: { id: "p2", name: "b", args: {} } }],
    };
    const answers: Content = { role: "user", parts: [{ functionResponse: { id: "p1", name: "a", response: {} } }] };
    const out = await filterContents([user("q"), parallel, answers, model("done")], undefined, (cs) => cs);
    expect(out[1]!.parts).toEqual([{ functionCall: { id: "p1", name: "a", args: {} } }]);
  });

  it("validates its options", () => {
    expect(() => new ContextFilterPlugin({})).toThrow(ConfigurationError);
    expect(() => new ContextFilterPlugin({ numInvocationsToKeep: 0 })).toThrow(/at least 1/);
    expect(() => new ContextFilterPlugin({ numInvocationsToKeep: 1.5 })).toThrow(ConfigurationError);
  });
});

describe("ContextFilterPlugin in a runner", () => {
  it("bounds what the model sees while the session keeps everything", async () => {
    const tool = new FunctionTool({
      name: "lookup",
      description: "Looks up",
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }) => ({ q }),
    });
    const scripted = new ScriptedModel({
      steps: [
        ScriptedModel.text("one"),
        ScriptedModel.functionCall("lookup", { q: "x" }),
        ScriptedModel.text("two"),
        ScriptedModel.text("three"),
      ],
    });
    const agent = new LlmAgent({ name: "agent", model: scripted, tools: [tool] });
    const runner = new InMemoryRunner({
      agent,
      appName: "plugins_test",
      plugins: [new ContextFilterPlugin({ numInvocationsToKeep: 1 })],
    });
    const { sessionId } = await runOnce(agent, [], "first", runner);
    await runOnce(agent, [], "second", runner, sessionId);
    await runOnce(agent, [], "third", runner, sessionId);
    const last = scripted.requests.at(-1)!;
    expect(last.contents).toEqual([user("third")]);
    // The tool round trip of the second invocation stayed paired within that invocation.
    const second = scripted.requests[2]!;
    expect(
      second.contents.map((c) => c.parts?.map((p) => (p.text ? "text" : p.functionCall ? "call" : "response")).join()),
    ).toEqual(["text", "call", "response"]);
    const session = await runner.sessionService.getSession({ appName: "plugins_test", userId: "u", sessionId });
    expect(session!.events.filter((e) => e.author === "user" && e.content?.parts?.[0]?.text)).toHaveLength(3);
    await runner.close();
  });

  it("keeps a long session's history shared and reads only the turns it keeps", async () => {
    /** Placed before the filter: records the array the flow handed the plugins. */
    class Watch extends BasePlugin {
      readonly arrays: Content[][] = [];
      override get readsContentsOnly(): boolean {
        return true;
      }
      override beforeModelCallback({ request }: { context: CallbackContext; request: LlmRequest }): undefined {
        this.arrays.push(request.contents);
        return undefined;
      }
    }
    const watch = new Watch("watch");
    const probe = new ContentsProbeModel();
    const runner = new InMemoryRunner({
      agent: new LlmAgent({ name: "talker", model: probe }),
      appName: "plugins_test",
      plugins: [watch, new ContextFilterPlugin({ numInvocationsToKeep: 2 })],
    });
    const session = await runner.sessionService.createSession({ appName: "plugins_test", userId: "u" });
    for (let turn = 1; turn <= 12; turn++) await runOnce(runner.agent, [], `question ${turn}`, runner, session.id);
    // Past the 16 events from which the runner shares a session's history, no call copied it,
    // and the session's array kept being lent (the filter's own array went to the model).
    expect(new Set(watch.arrays.slice(9)).size).toBe(1);
    expect(probe.requests.at(-1)!.contents.map((c) => c.parts?.[0]?.text)).toEqual([
      "question 11",
      "answer 11",
      "question 12",
    ]);
    await runner.close();

    let reads = 0;
    const history = Array.from({ length: 10_000 }, (_, i) => (i % 2 === 0 ? user(`q${i}`) : model(`a${i}`)));
    const counted = new Proxy(history, {
      get(target, key, receiver) {
        if (typeof key === "string" && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    expect(await filterContents(counted, 2, undefined)).toEqual(history.slice(-4));
    expect(reads).toBeLessThan(20);
  });

  it.each([1, 2, 3])("keeps what counting every user turn from the start kept (seed %i)", async (seed) => {
    /** The filter as it was: every user turn's index, then the keep-th from the end. */
    const reference = (contents: Content[], keep: number): Content[] => {
      const starts = contents.flatMap((c, i) =>
        c.role === "user" && (c.parts ?? []).length > 0 && !(c.parts ?? []).some((p) => p.functionResponse) ? [i] : [],
      );
      return starts.length > keep ? contents.slice(starts[starts.length - keep]) : contents;
    };
    const rng = new SeededRandom(seed);
    for (let round = 0; round < 200; round++) {
      const contents = Array.from({ length: rng.int(12) }, (_, i) => {
        const kind = rng.int(4);
        return kind === 0
          ? user(`u${i}`)
          : kind === 1
            ? model(`m${i}`)
            : kind === 2
              ? call(`c${i}`)
              : response(`c${i - 1}`);
      });
      const keep = 1 + rng.int(4);
      expect(await filterContents(contents, keep, undefined)).toEqual(
        await filterContents(reference(contents, keep), undefined, (kept) => kept),
      );
    }
  });
});
