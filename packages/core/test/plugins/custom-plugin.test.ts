import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  type AfterRunHookArgs,
  type AfterToolHookArgs,
  BasePlugin,
  type BeforeToolHookArgs,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  type ToolErrorHookArgs,
} from "../../src/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

/**
 * The plugin of docs/plugins.md ("Writing a plugin"), word for word: each hook's argument is
 * declared with its named type; a value returned by `beforeToolCallback` stands in for the tool;
 * `afterToolCallback` sees every call's response (the tool's, the stand-in, or the `{ error }` of
 * a failed call); the other hooks only observe.
 */
class ToolPolicyPlugin extends BasePlugin {
  readonly audit: { tool: string; outcome: "answered" | "refused" | "failed" }[] = [];
  readonly errors: string[] = [];
  readonly runsEnded: string[] = [];

  constructor(private readonly denied: ReadonlySet<string>) {
    super("tool_policy");
  }

  override beforeToolCallback({ tool }: BeforeToolHookArgs): Record<string, unknown> | undefined {
    if (this.denied.has(tool.name)) return { error: `The tool ${tool.name} is not allowed here.` };
    return undefined;
  }

  override onToolErrorCallback({ tool, error }: ToolErrorHookArgs): undefined {
    this.errors.push(`${tool.name}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined; // the model gets the failure as the tool's { error } response
  }

  override afterToolCallback({ tool, response }: AfterToolHookArgs): undefined {
    const outcome = this.denied.has(tool.name) ? "refused" : "error" in response ? "failed" : "answered";
    this.audit.push({ tool: tool.name, outcome });
    return undefined;
  }

  override afterRunCallback({ invocationContext }: AfterRunHookArgs): void {
    this.runsEnded.push(invocationContext.invocationId);
  }
}

describe("a plugin of one's own, with the named hook argument types", () => {
  it("refuses a denied tool without running it, observes the others, and sees each run end", async () => {
    const executed: string[] = [];
    const tool = (name: string) =>
      new FunctionTool({
        name,
        description: `The ${name} tool.`,
        parameters: z.object({}),
        execute: async () => {
          executed.push(name);
          if (name === "flaky") throw new Error("the backend is down");
          return { ok: true };
        },
      });
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCalls([{ name: "lookup" }, { name: "delete_account" }, { name: "flaky" }]),
        ScriptedModel.text("Done."),
      ],
    });
    const policy = new ToolPolicyPlugin(new Set(["delete_account"]));
    const agent = new LlmAgent({
      name: "assistant",
      model,
      tools: [tool("lookup"), tool("delete_account"), tool("flaky")],
    });
    const runner = new InMemoryRunner({ agent, appName: "app", plugins: [policy] });
    const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });

    const events = [];
    for await (const event of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text: "Tidy up my account." }] },
    }))
      events.push(event);

    // The denied tool never ran; its call was answered with the plugin's value.
    expect(executed.sort()).toEqual(["flaky", "lookup"]);
    expect([...policy.audit].sort((x, y) => x.tool.localeCompare(y.tool))).toEqual([
      { tool: "delete_account", outcome: "refused" },
      { tool: "flaky", outcome: "failed" },
      { tool: "lookup", outcome: "answered" },
    ]);
    expect(policy.errors).toEqual(["flaky: the backend is down"]);
    const responses = events.flatMap((e) => e.content?.parts ?? []).flatMap((p) => (p.functionResponse ? [p] : []));
    const refused = responses.find((p) => p.functionResponse?.name === "delete_account");
    expect(refused?.functionResponse?.response).toEqual({ error: "The tool delete_account is not allowed here." });
    // The model's second request carried all three answers, and the run ended once.
    expect(model.requests).toHaveLength(2);
    const answered = model.requests[1]!.contents.at(-1)!.parts!.map((p) => p.functionResponse?.name);
    expect(answered.sort()).toEqual(["delete_account", "flaky", "lookup"]);
    expect(policy.runsEnded).toEqual([events[0]!.invocationId]);
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("Done.");
  });
});
