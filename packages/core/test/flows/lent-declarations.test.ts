// A FunctionTool's declaration is made once and lent, frozen, to the requests of a model or
// plugin that declares `readsContentsOnly`; callbacks, other plugins, other models and tools that
// edit the request get copies of their own, and nothing they do reaches the shared declaration.
import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  BaseLlm,
  BasePlugin,
  BaseTool,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  LongRunningFunctionTool,
  type CallbackContext,
  type FunctionDeclaration,
  type LlmRequest,
  type LlmResponse,
  type ToolContext,
} from "../../src/index.js";

/** Calls `lookup` on odd calls, answers text on even ones; keeps the declarations each call saw. */
class DeclarationsModel extends BaseLlm {
  readonly seen: FunctionDeclaration[][] = [];

  constructor(
    private readonly readOnly: boolean,
    private readonly edit?: (declarations: FunctionDeclaration[]) => void,
  ) {
    super({ model: "declarations" });
  }

  override get readsContentsOnly(): boolean {
    return this.readOnly;
  }

  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void, void> {
    const declarations = (request.config.tools ?? []).flatMap((t) => t.functionDeclarations ?? []);
    this.seen.push(declarations);
    this.edit?.(declarations);
    yield this.seen.length % 2 === 0
      ? { content: { role: "model", parts: [{ text: "done" }] } }
      : { content: { role: "model", parts: [{ functionCall: { name: "lookup", args: { q: "x" } } }] } };
  }
}

const lookup = () =>
  new FunctionTool({
    name: "lookup",
    description: "Looks something up.",
    parameters: z.object({ q: z.string(), limit: z.number().optional() }),
    execute: ({ q }) => ({ q }),
  });

interface Setup {
  model: DeclarationsModel;
  tools?: BaseTool[];
  beforeModel?: (args: { context: CallbackContext; request: LlmRequest }) => undefined;
  plugins?: BasePlugin[];
}

/** Runs `turns` invocations (two model calls each) on one session. */
async function converse({ model, tools = [lookup()], beforeModel, plugins }: Setup, turns = 2): Promise<void> {
  const agent = new LlmAgent({ name: "root", model, tools, beforeModelCallback: beforeModel });
  const runner = new InMemoryRunner({ agent, appName: "app", plugins });
  const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
  for (let i = 0; i < turns; i++) {
    const newMessage = { role: "user", parts: [{ text: `question ${i}` }] };
    for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage })) void _;
  }
  await runner.close();
}

function isDeepFrozen(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(isDeepFrozen);
}

describe("lent tool declarations", () => {
  it("a read-only model gets one frozen declaration for every call, equal to getDeclaration()", async () => {
    const tool = lookup();
    const model = new DeclarationsModel(true);
    await converse({ model, tools: [tool] });

    expect(model.seen).toHaveLength(4);
    const first = model.seen[0]![0]!;
    for (const declarations of model.seen) expect(declarations[0]).toBe(first);
    expect(isDeepFrozen(first)).toBe(true);
    expect(first).toEqual(tool.getDeclaration());
    // The public getter still hands out copies of its own.
    const own = tool.getDeclaration();
    expect(own).not.toBe(first);
    expect(Object.isFrozen(own)).toBe(false);
    expect(Object.isFrozen(own.parametersJsonSchema)).toBe(false);
  });

  it("a model that does not declare readsContentsOnly gets a copy per call it may edit", async () => {
    const tool = lookup();
    const model = new DeclarationsModel(false, (declarations) => {
      declarations[0]!.description = "edited by the model";
      (declarations[0]!.parametersJsonSchema as { properties: Record<string, unknown> }).properties.extra = {};
    });
    await converse({ model, tools: [tool] });

    expect(new Set(model.seen.map((d) => d[0])).size).toBe(4);
    for (const declarations of model.seen) expect(Object.isFrozen(declarations[0])).toBe(false);
    // Every call started from the tool's own declaration: no edit carried over.
    expect(tool.getDeclaration().description).toBe("Looks something up.");
    const reader = new DeclarationsModel(true);
    await converse({ model: reader, tools: [tool] });
    expect(reader.seen[0]![0]).toEqual(tool.getDeclaration());
  });

  it("a before-model callback edits its own copy, seen by this call only", async () => {
    const tool = lookup();
    const model = new DeclarationsModel(true);
    let calls = 0;
    const beforeModel = ({ request }: { request: LlmRequest }): undefined => {
      calls++;
      const declaration = request.config.tools![0]!.functionDeclarations![0]!;
      expect(Object.isFrozen(declaration)).toBe(false);
      if (calls === 1) declaration.description = "only for the first call";
      return undefined;
    };
    await converse({ model, tools: [tool], beforeModel });

    expect(model.seen.map((d) => d[0]!.description)).toEqual([
      "only for the first call",
      "Looks something up.",
      "Looks something up.",
      "Looks something up.",
    ]);
    expect(tool.getDeclaration().description).toBe("Looks something up.");
  });

  it("a plugin that may edit gets copies; one that only reads gets the frozen declaration", async () => {
    class Editing extends BasePlugin {
      override async beforeModelCallback({ request }: { request: LlmRequest }): Promise<undefined> {
        request.config.tools![0]!.functionDeclarations![0]!.description = "plugin edit";
        return undefined;
      }
    }
    const edited = new DeclarationsModel(true);
    await converse({ model: edited, plugins: [new Editing("editing")] });
    expect(edited.seen.every((d) => d[0]!.description === "plugin edit")).toBe(true);

    const held: FunctionDeclaration[] = [];
    class Reading extends BasePlugin {
      override get readsContentsOnly(): boolean {
        return true;
      }
      override async beforeModelCallback({ request }: { request: LlmRequest }): Promise<undefined> {
        held.push(request.config.tools![0]!.functionDeclarations![0]!);
        return undefined;
      }
    }
    const tool = lookup();
    const read = new DeclarationsModel(true);
    await converse({ model: read, tools: [tool], plugins: [new Reading("reading")] });
    expect(held).toHaveLength(4);
    expect(new Set(held).size).toBe(1);
    expect(isDeepFrozen(held[0])).toBe(true);
    expect(() => {
      held[0]!.description = "edit";
    }).toThrow(TypeError);
    expect(read.seen[3]![0]).toBe(held[0]);
  });

  it("a tool that edits the request after a lent declaration was added edits a copy", async () => {
    const tool = lookup();
    class Renaming extends BaseTool {
      constructor() {
        super({ name: "renaming", description: "Edits the request." });
      }
      override async processLlmRequest({ llmRequest }: { toolContext: ToolContext; llmRequest: LlmRequest }) {
        for (const declaration of llmRequest.config.tools![0]!.functionDeclarations!)
          declaration.description = `${declaration.description} (checked)`;
      }
    }
    const model = new DeclarationsModel(true);
    await converse({ model, tools: [tool, new Renaming()] });

    expect(model.seen.map((d) => d[0]!.description)).toEqual(
      Array.from({ length: 4 }, () => "Looks something up. (checked)"),
    );
    const reader = new DeclarationsModel(true);
    await converse({ model: reader, tools: [tool] });
    expect(reader.seen[0]![0]!.description).toBe("Looks something up.");
  });

  it("tools that override getDeclaration are asked on every request", async () => {
    let asked = 0;
    class Counted extends FunctionTool<undefined> {
      override getDeclaration(): FunctionDeclaration {
        asked++;
        return { ...super.getDeclaration(), description: `asked ${asked}` };
      }
    }
    const counted = new Counted({ name: "lookup", description: "x", execute: () => ({}) });
    const model = new DeclarationsModel(true);
    await converse({ model, tools: [counted] });
    expect(model.seen.map((d) => d[0]!.description)).toEqual(["asked 1", "asked 2", "asked 3", "asked 4"]);

    const longRunning = new LongRunningFunctionTool({ name: "lookup", description: "Starts it.", execute: () => ({}) });
    const seesNote = new DeclarationsModel(true);
    await converse({ model: seesNote, tools: [longRunning] }, 1);
    expect(seesNote.seen[0]![0]).toEqual(longRunning.getDeclaration());
  });

  it("a callback may replace the tools or the config: the copying model gets what it left", async () => {
    const model = new DeclarationsModel(false);
    let calls = 0;
    const beforeModel = ({ request }: { request: LlmRequest }): undefined => {
      calls++;
      if (calls === 1) request.config.tools = [{ functionDeclarations: [{ name: "lookup", description: "mine" }] }];
      else if (calls === 2) request.config = {};
      return undefined;
    };
    await converse({ model, beforeModel }, 1);

    expect(model.seen.map((d) => d.map((x) => x.description))).toEqual([["mine"], []]);
  });

  it("a tool whose description was changed gets a new shared declaration", async () => {
    const tool = lookup();
    const before = new DeclarationsModel(true);
    await converse({ model: before, tools: [tool] }, 1);
    (tool as { description: string }).description = "Looks it up, now better.";
    const after = new DeclarationsModel(true);
    await converse({ model: after, tools: [tool] }, 1);

    expect(before.seen[0]![0]!.description).toBe("Looks something up.");
    expect(after.seen[0]![0]!.description).toBe("Looks it up, now better.");
    expect(after.seen[0]![0]).toEqual(tool.getDeclaration());
  });
});
