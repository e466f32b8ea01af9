import { describe, expect, it } from "@jest/globals";
import {
  BaseToolset,
  ConfigurationError,
  FunctionTool,
  LlmAgent,
  Runner,
  InMemorySessionService,
  createEvent,
  exitLoopTool as coreExitLoopTool,
  getSystemInstructionText,
  type BaseTool,
  type ReadonlyContext,
} from "@agentkit/core";
import { ScriptedModel, type RecordedRequest } from "@agentkit/core/testing";
import {
  ExampleTool,
  createBuiltInTools,
  exitLoopTool,
  filterTools,
  loadArtifactsTool,
  loadMemoryTool,
  preloadMemoryTool,
  toolNamePredicate,
  type VertexAiSearchTool,
  type Example,
  type ToolPredicate,
} from "../src/index.js";
import { startRunner, textOf } from "./helpers.js";

const systemText = (r: RecordedRequest) => getSystemInstructionText({ ...r, toolsDict: {} });

const weatherExample: Example = {
  input: { role: "user", parts: [{ text: "What's the weather in Oslo?" }] },
  output: [
    { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Oslo" } } }] },
    { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { sky: "snow" } } }] },
    { role: "model", parts: [{ text: "It is snowing in Oslo." }] },
  ],
};

describe("ExampleTool", () => {
  it("writes fixed examples, tool calls and results included, into the system instruction", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("ok")] });
    const { send } = await startRunner(
      new LlmAgent({ name: "a", model, tools: [new ExampleTool({ examples: [weatherExample] })] }),
    );
    await send("Weather in Rome?");
    const si = systemText(model.requests[0]!);
    expect(si).toContain("<EXAMPLES>");
    expect(si).toContain(
      "EXAMPLE 1:\nBegin example\n[user]\nWhat's the weather in " +
        'Oslo?\n[model]\n```tool_code\nget_weather(city="Oslo")\n```\n',
    );
    expect(si).toContain('[user]\n```tool_outputs\n{"sky":"snow"}\n```\n[model]\nIt is snowing in Oslo.\n');
    expect(model.requests[0]!.toolNames).not.toContain("example_tool");
    expect(model.requests[0]!.config.tools ?? []).toEqual([]);
  });

  it("asks an async provider with each turn's user query", async () => {
    const queries: string[] = [];
    const provider = async (query: string): Promise<Example[]> => {
      queries.push(query);
      return [
        {
          input: { role: "user", parts: [{ text: `like ${query}` }] },
          output: [{ role: "model", parts: [{ text: `answer for ${query}` }] }],
        },
      ];
    };
    const model = new ScriptedModel({ steps: [ScriptedModel.text("1"), ScriptedModel.text("2")] });
    const { send } = await startRunner(
      new LlmAgent({ name: "a", model, tools: [new ExampleTool({ examples: provider })] }),
    );
    await send("first question");
    await send("second question");
    expect(queries).toEqual(["first question", "second question"]);
    expect(systemText(model.requests[0]!)).toContain("answer for first question");
    expect(systemText(model.requests[1]!)).toContain("answer for second question");
    expect(systemText(model.requests[1]!)).not.toContain("answer for first question");
  });

  it("rejects malformed examples with ConfigurationError", async () => {
    expect(() => new ExampleTool({ examples: "nope" as never })).toThrow(ConfigurationError);
    expect(() => new ExampleTool({ examples: [{ input: { parts: [] } } as never] })).toThrow(/example #1 must be/);
    const model = new ScriptedModel({ steps: [] });
    const { send } = await startRunner(
      new LlmAgent({ name: "a", model, tools: [new ExampleTool({ examples: () => [{ output: [] } as never] })] }),
    );
    await expect(send("q")).rejects.toThrow(ConfigurationError);
  });
});

describe("loadArtifactsTool", () => {
  it("lists artifacts, and attaches the loaded ones to the next request only", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("load_artifacts", { artifact_names: ["notes.txt", "missing.txt"] }),
        ScriptedModel.text("The notes say hi."),
        ScriptedModel.text("bye"),
      ],
    });
    const agent = new LlmAgent({ name: "a", model, tools: [loadArtifactsTool] });
    const { send, runner, session } = await startRunner(agent);
    await runner.artifactService.saveArtifact({
      appName: "tools_test",
      userId: "u",
      sessionId: session.id,
      filename: "notes.txt",
      artifact: { text: "hi from the notes" },
    });

    const events = await send("What do my notes say?");
    expect(textOf(events.at(-1))).toBe("The notes say hi.");
    const [first, second] = model.requests;
    expect(first!.toolNames).toContain("load_artifacts");
    expect(first!.config.tools?.[0]?.functionDeclarations?.[0]?.name).toBe("load_artifacts");
    expect(systemText(first!)).toContain('You have a list of artifacts:\n  ["notes.txt"]');
    expect(JSON.stringify(first!.contents)).not.toContain("hi from the notes");

    const tail = second!.contents.slice(-3);
    expect(tail[0]!.parts?.[0]?.functionResponse?.name).toBe("load_artifacts");
    expect(tail[1]).toEqual({
      role: "user",
      parts: [{ text: "Artifact notes.txt is:" }, { text: "hi from the notes" }],
    });
    expect(tail[2]).toEqual({ role: "user", parts: [{ text: "Artifact missing.txt does not exist." }] });

    await send("thanks");
    expect(JSON.stringify(model.requests[2]!.contents)).not.toContain("hi from the notes");
  });

  it("adds no instruction when the session has no artifacts", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("none")] });
    const { send } = await startRunner(new LlmAgent({ name: "a", model, tools: [loadArtifactsTool] }));
    await send("anything?");
    expect(systemText(model.requests[0]!)).not.toContain("list of artifacts");
  });
});

describe("memory tools", () => {
  async function rememberedRunner(agent: LlmAgent) {
    const env = await startRunner(agent);
    const sessionService = env.runner.sessionService as InMemorySessionService;
    const old = await sessionService.createSession({ appName: "tools_test", userId: "u" });
    await sessionService.appendEvent({
      session: old,
      event: createEvent({ author: "user", content: { role: "user", parts: [{ text: "My cat is called Tom." }] } }),
    });
    await sessionService.appendEvent({
      session: old,
      event: createEvent({ author: "a", content: { role: "model", parts: [{ text: "Nice name for a cat!" }] } }),
    });
    await env.runner.memoryService!.addSessionToMemory(old);
    return env;
  }

  it("load_memory returns LoadMemoryResponse { memories } for the model's query", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.functionCall("load_memory", { query: "cat name" }), ScriptedModel.text("Your cat is Tom.")],
    });
    const { send } = await rememberedRunner(new LlmAgent({ name: "a", model, tools: [loadMemoryTool] }));
    const events = await send("What is my cat called?");
    expect(textOf(events.at(-1))).toBe("Your cat is Tom.");
    expect(systemText(model.requests[0]!)).toContain("You have memory.");
    const response = events.flatMap((e) => e.content?.parts ?? []).find((p) => p.functionResponse)?.functionResponse
      ?.response as {
      memories: { author?: string; content: { parts: { text: string }[] } }[];
    };
    // Both match "cat"; the newer one ranks first.
    expect(response.memories.map((m) => [m.author, m.content.parts[0]!.text])).toEqual([
      ["a", "Nice name for a cat!"],
      ["user", "My cat is called Tom."],
    ]);
  });

  it("preload_memory puts what the user's message finds into the instruction, without a tool call", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text("Tom."), ScriptedModel.text("No idea.")] });
    const { send } = await rememberedRunner(new LlmAgent({ name: "a", model, tools: [preloadMemoryTool] }));
    await send("What is the name of my cat?");
    const si = systemText(model.requests[0]!);
    expect(si).toContain("<PAST_CONVERSATIONS>");
    expect(si).toMatch(/Time: \d{4}-\d\d-\d\dT[^\n]+\nuser: My cat is called Tom\./);
    expect(model.requests[0]!.config.tools ?? []).toEqual([]);
    await send("Weather tomorrow?");
    expect(systemText(model.requests[1]!)).not.toContain("PAST_CONVERSATIONS");
  });

  it("preload_memory without a memory service raises ConfigurationError", async () => {
    const agent = new LlmAgent({ name: "a", model: new ScriptedModel({ steps: [] }), tools: [preloadMemoryTool] });
    const runner = new Runner({ appName: "x", agent, sessionService: new InMemorySessionService() });
    const session = await runner.sessionService.createSession({ appName: "x", userId: "u" });
    const run = async () => {
      for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "hello" })) void _;
    };
    await expect(run()).rejects.toThrow(/No memory service is configured/);
  });
});

describe("tool filters", () => {
  const tool = (name: string) => new FunctionTool({ name, description: name, execute: () => ({}) });

  class ListToolset extends BaseToolset {
    constructor(
      private readonly tools: BaseTool[],
      toolFilter?: string[] | ToolPredicate,
    ) {
      super({ toolFilter });
    }
    async getTools(context?: ReadonlyContext): Promise<BaseTool[]> {
      return filterTools(this.tools, this.toolFilter, context);
    }
    async close(): Promise<void> {}
  }

  it("filterTools selects by names, by predicate or not at all", () => {
    const tools = [tool("a"), tool("b"), tool("c")];
    expect(filterTools(tools, ["c", "a"]).map((t) => t.name)).toEqual(["a", "c"]);
    expect(filterTools(tools, (t) => t.name !== "b").map((t) => t.name)).toEqual(["a", "c"]);
    expect(filterTools(tools, toolNamePredicate(["b"])).map((t) => t.name)).toEqual(["b"]);
    expect(filterTools(tools, undefined)).toHaveLength(3);
  });

  it("a toolset's predicate sees the invocation context and decides what the model is offered", async () => {
    const predicate: ToolPredicate = (t, ctx) => t.name !== "admin" || ctx?.state.get("role") === "admin";
    const model = new ScriptedModel({ steps: [ScriptedModel.text("x"), ScriptedModel.text("y")] });
    const agent = new LlmAgent({
      name: "a",
      model,
      tools: [new ListToolset([tool("search"), tool("admin")], predicate)],
    });
    await (await startRunner(agent)).send("hi");
    await (await startRunner(agent, { role: "admin" })).send("hi");
    expect(model.requests.map((r) => r.toolNames)).toEqual([["search"], ["search", "admin"]]);
  });
});

describe("names for YAML configs", () => {
  it("maps ADK's tool names to instances and factories", () => {
    const map = createBuiltInTools();
    expect(Object.keys(map).sort()).toEqual(
      [
        "ExampleTool",
        "VertexAiSearchTool",
        "built_in_code_execution",
        "example_tool",
        "exit_loop",
        "google_maps",
        "google_maps_grounding",
        "google_search",
        "load_artifacts",
        "load_memory",
        "preload_memory",
        "url_context",
        "vertex_ai_search",
      ].sort(),
    );
    expect(map.exit_loop).toBe(coreExitLoopTool);
    expect(exitLoopTool).toBe(coreExitLoopTool);
    expect(map.load_artifacts).toBe(loadArtifactsTool);
    const factory = map.vertex_ai_search as (args: Record<string, unknown>) => VertexAiSearchTool;
    expect(factory({ data_store_id: "docs", project: "p", max_results: 3 }).datastore).toBe(
      "projects/p/locations/global/collections/default_collection/dataStores/docs",
    );
    expect(() => factory({})).toThrow(ConfigurationError);
    const examples = (map.example_tool as (args: Record<string, unknown>) => ExampleTool)({
      examples: [weatherExample],
    });
    expect(examples).toBeInstanceOf(ExampleTool);
  });
});
