import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  BaseAgent,
  FunctionTool,
  InMemorySessionService,
  InvocationContext,
  LongRunningFunctionTool,
  PluginManager,
  ToolContext,
  type Event,
} from "../src/index.js";

class StubAgent extends BaseAgent {
  protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {}
}

const NOTE =
  "NOTE: This is a long-running operation. Do not call this tool again if it has already returned some intermediate " +
  "or pending status.";

describe("LongRunningFunctionTool", () => {
  const tool = new LongRunningFunctionTool({
    name: "ask_for_approval",
    description: "Asks a manager to approve a reimbursement.",
    parameters: z.object({ amount: z.number(), purpose: z.string() }),
    execute: async (args) => ({ status: "pending", ticketId: `ticket-${args.amount}`, purpose: args.purpose }),
  });

  it("is long-running, unlike a plain function tool", () => {
    expect(tool.isLongRunning).toBe(true);
    expect(tool).toBeInstanceOf(FunctionTool);
    expect(new FunctionTool({ name: "f", description: "d", execute: () => 1 }).isLongRunning).toBe(false);
  });

  it("appends ADK's note to the declared description, keeping the schema", () => {
    const declaration = tool.getDeclaration();
    expect(declaration.description).toBe(`Asks a manager to approve a reimbursement.\n\n${NOTE}`);
    expect(declaration.parametersJsonSchema).toMatchObject({ type: "object", required: ["amount", "purpose"] });
    // Calling twice does not append twice.
    expect(tool.getDeclaration().description).toBe(declaration.description);
    // The tool's own description stays unchanged.
    expect(tool.description).toBe("Asks a manager to approve a reimbursement.");
  });

  it("uses the note alone when there is no description", () => {
    const bare = new LongRunningFunctionTool({ name: "wait", description: "", execute: () => ({ status: "pending" }) });
    expect(bare.getDeclaration().description).toBe(NOTE);
  });

  it("runs like a function tool and returns the intermediate result", async () => {
    const sessionService = new InMemorySessionService();
    const session = await sessionService.createSession({ appName: "app", userId: "u" });
    const invocation = new InvocationContext({
      invocationId: "e-1",
      agent: new StubAgent({ name: "a" }),
      session,
      sessionService,
      pluginManager: new PluginManager(),
    });
    const result = await tool.runAsync({
      args: { amount: 30, purpose: "taxi" },
      toolContext: new ToolContext(invocation, { functionCallId: "c1" }),
    });
    expect(result).toEqual({ status: "pending", ticketId: "ticket-30", purpose: "taxi" });
  });
});
