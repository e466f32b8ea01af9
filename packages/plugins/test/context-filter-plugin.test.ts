import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, FunctionTool, InMemoryRunner, LlmAgent, type Content } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
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
});
