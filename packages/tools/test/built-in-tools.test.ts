import { describe, expect, it } from "@jest/globals";
import { ConfigurationError, FunctionTool, LlmAgent, type Tool } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import {
  BuiltInCodeExecutionTool,
  BuiltInCodeExecutor,
  GoogleSearchAgentTool,
  GoogleSearchTool,
  VertexAiSearchTool,
  builtInCodeExecutionTool,
  googleMapsTool,
  googleSearchTool,
  isGeminiModel,
  urlContextTool,
} from "../src/index.js";
import { startRunner, textOf } from "./helpers.js";

const weather = new FunctionTool({
  name: "get_weather",
  description: "Weather of a city.",
  parameters: z.object({ city: z.string() }),
  execute: ({ city }) => ({ city, sky: "clear" }),
});

async function firstRequestTools(model: string, tools: LlmAgent["tools"]): Promise<Tool[]> {
  const scripted = new ScriptedModel({ model, steps: [ScriptedModel.text("done")] });
  const agent = new LlmAgent({ name: "agent", model: scripted, tools });
  const { send, runner } = await startRunner(agent);
  await send("hello");
  await runner.close();
  scripted.assertConsumed();
  return scripted.requests[0]!.config.tools ?? [];
}

describe("built-in model tools", () => {
  it.each([
    ["google_search", googleSearchTool, { googleSearch: {} }],
    ["google_maps", googleMapsTool, { googleMaps: {} }],
    ["url_context", urlContextTool, { urlContext: {} }],
    ["built_in_code_execution", builtInCodeExecutionTool, { codeExecution: {} }],
  ] as const)(
    "%s adds its native declaration next to function tools for a Gemini model",
    async (_name, tool, entry) => {
      const tools = await firstRequestTools("gemini-2.5-flash", [tool, weather]);
      expect(tools).toContainEqual(entry);
      const functions = tools.find((t) => t.functionDeclarations)?.functionDeclarations ?? [];
      expect(functions.map((f) => f.name)).toEqual(["get_weather"]);
    },
  );

  it.each([
    ["google_search", googleSearchTool, /GoogleSearchAgentTool/],
    ["google_maps", googleMapsTool, /Gemini 2/],
    ["url_context", urlContextTool, /Gemini 2/],
    ["built_in_code_execution", builtInCodeExecutionTool, /LocalCodeExecutor/],
  ] as const)("%s with a non-Gemini model fails at request time with ConfigurationError", async (name, tool, hint) => {
    const scripted = new ScriptedModel({ model: "gpt-4o", steps: [ScriptedModel.text("never")] });
    const agent = new LlmAgent({ name: "agent", model: scripted, tools: [tool] });
    const { send } = await startRunner(agent);
    const error = await send("hi").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as ConfigurationError).code).toBe("CONFIGURATION_ERROR");
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).toContain('"gpt-4o"');
    expect((error as Error).message).toMatch(hint);
    expect(scripted.requests).toHaveLength(0);
  });

  it("recognises Gemini names with resource prefixes, and Gemini 1 search uses googleSearchRetrieval alone", async () => {
    expect(isGeminiModel("projects/p/locations/us/publishers/google/models/gemini-2.0-flash")).toBe(true);
    expect(isGeminiModel("models/gemini-2.5-pro")).toBe(true);
    expect(isGeminiModel("claude-3-5-sonnet")).toBe(false);
    expect(isGeminiModel("openai-compatible/gemini-2.0-flash")).toBe(false);
    expect(isGeminiModel("ollama/gemma3")).toBe(false);
    expect(await firstRequestTools("gemini-1.5-pro", [googleSearchTool])).toEqual([{ googleSearchRetrieval: {} }]);
    const error = await firstRequestTools("gemini-1.5-pro", [weather, googleSearchTool]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toMatch(/cannot be combined with other tools/);
    const maps = await firstRequestTools("gemini-1.5-pro", [googleMapsTool]).catch((e: unknown) => e);
    expect((maps as Error).message).toMatch(/needs Gemini 2 or later/);
  });

  it("declares a tool once even when listed twice", async () => {
    expect(
      await firstRequestTools("gemini-2.5-flash", [googleSearchTool, new BuiltInCodeExecutionTool(), googleSearchTool]),
    ).toEqual([{ googleSearch: {} }, { codeExecution: {} }]);
  });
});

describe("VertexAiSearchTool", () => {
  it("sends the retrieval config of a data store", async () => {
    const tool = new VertexAiSearchTool({
      dataStoreId: "projects/p/locations/eu/collections/default_collection/dataStores/docs",
      filter: 'lang: ANY("en")',
      maxResults: 5,
    });
    expect(await firstRequestTools("gemini-2.5-flash", [tool])).toEqual([
      {
        retrieval: {
          vertexAiSearch: {
            datastore: "projects/p/locations/eu/collections/default_collection/dataStores/docs",
            filter: 'lang: ANY("en")',
            maxResults: 5,
          },
        },
      },
    ]);
  });

  it("builds resource names from a bare id, project and location, and passes dataStoreSpecs of an engine", async () => {
    expect(new VertexAiSearchTool({ dataStore: "docs", project: "p", location: "us" }).datastore).toBe(
      "projects/p/locations/us/collections/default_collection/dataStores/docs",
    );
    const engine = new VertexAiSearchTool({
      searchEngineId: "app1",
      project: "p",
      dataStoreSpecs: [
        { dataStore: "projects/p/locations/global/collections/default_collection/dataStores/a", filter: "x" },
      ],
    });
    expect(await firstRequestTools("gemini-2.5-flash", [engine])).toEqual([
      {
        retrieval: {
          vertexAiSearch: {
            engine: "projects/p/locations/global/collections/default_collection/engines/app1",
            dataStoreSpecs: [
              { dataStore: "projects/p/locations/global/collections/default_collection/dataStores/a", filter: "x" },
            ],
          },
        },
      },
    ]);
  });

  it("rejects invalid configurations with ConfigurationError", () => {
    expect(() => new VertexAiSearchTool({})).toThrow(/exactly one of dataStoreId, dataStore or searchEngineId/);
    expect(() => new VertexAiSearchTool({ dataStoreId: "a", searchEngineId: "b", project: "p" })).toThrow(
      ConfigurationError,
    );
    expect(() => new VertexAiSearchTool({ dataStoreId: "docs" })).toThrow(/bare id; pass project/);
    expect(() => new VertexAiSearchTool({ dataStoreId: "projects/p/x", dataStoreSpecs: [{ dataStore: "d" }] })).toThrow(
      /dataStoreSpecs only apply/,
    );
    expect(() => new VertexAiSearchTool({ dataStoreId: "projects/p/x", maxResults: 0 })).toThrow(/maxResults/);
    expect(() => new VertexAiSearchTool({ dataStoreId: "projects/p/x", bogus: 1 } as never)).toThrow(
      ConfigurationError,
    );
  });

  it("fails at request time for a non-Gemini model", async () => {
    const tool = new VertexAiSearchTool({
      dataStoreId: "projects/p/locations/global/collections/default_collection/dataStores/d",
    });
    await expect(firstRequestTools("claude-sonnet-4", [tool])).rejects.toThrow(
      /vertex_ai_search is a Gemini built-in tool/,
    );
  });
});

describe("GoogleSearchAgentTool", () => {
  it("lets a non-Gemini agent search through a Gemini sub-agent, alongside function tools", async () => {
    const gemini = new ScriptedModel({
      model: "gemini-2.5-flash",
      steps: [ScriptedModel.text("Paris has 2.1M inhabitants [source: insee.fr]")],
    });
    const parent = new ScriptedModel({
      model: "gpt-4o",
      steps: [
        ScriptedModel.functionCall("google_search_agent", { request: "population of Paris" }),
        ScriptedModel.text("About 2.1 million."),
      ],
    });
    const agent = new LlmAgent({
      name: "assistant",
      model: parent,
      tools: [weather, new GoogleSearchAgentTool({ model: gemini })],
    });
    const { send } = await startRunner(agent);
    const events = await send("How many people live in Paris?");

    expect(textOf(events.at(-1))).toBe("About 2.1 million.");
    // The parent model sees two function tools and no native tool.
    const parentTools = parent.requests[0]!.config.tools ?? [];
    expect(parentTools).toHaveLength(1);
    expect(parentTools[0]!.functionDeclarations!.map((f) => f.name).sort()).toEqual([
      "get_weather",
      "google_search_agent",
    ]);
    // The sub-agent's Gemini request carries google search and the request text.
    expect(gemini.requests[0]!.config.tools).toEqual([{ googleSearch: {} }]);
    expect(JSON.stringify(gemini.requests[0]!.contents)).toContain("population of Paris");
    // The search answer went back to the parent model as the tool result.
    const response = parent.requests[1]!.contents.flatMap((c) => c.parts ?? []).find(
      (p) => p.functionResponse,
    )?.functionResponse;
    expect(JSON.stringify(response?.response)).toContain("2.1M inhabitants");
  });
});

describe("GoogleSearchTool fallbacks", () => {
  it("fallbackModel: a non-Gemini agent gets search through a Gemini sub-agent instead of an error", async () => {
    const gemini = new ScriptedModel({ model: "gemini-2.5-flash", steps: [ScriptedModel.text("Result: 42 moons.")] });
    const parent = new ScriptedModel({
      model: "claude-sonnet-4",
      steps: [ScriptedModel.functionCall("google_search_agent", { request: "moons of X" }), ScriptedModel.text("42.")],
    });
    const agent = new LlmAgent({ name: "a", model: parent, tools: [new GoogleSearchTool({ fallbackModel: gemini })] });
    const events = await (await startRunner(agent)).send("How many moons?");
    expect(textOf(events.at(-1))).toBe("42.");
    expect(parent.requests[0]!.config.tools).toEqual([
      { functionDeclarations: [expect.objectContaining({ name: "google_search_agent" })] },
    ]);
    expect(gemini.requests[0]!.config.tools).toEqual([{ googleSearch: {} }]);
  });

  it("bypassMultiToolsLimit: with other tools, search moves into a sub-agent on the agent's own model", async () => {
    const model = new ScriptedModel({
      model: "gemini-2.0-flash",
      steps: [
        ScriptedModel.functionCall("google_search_agent", { request: "news" }),
        ScriptedModel.text("Searched news."),
        ScriptedModel.text("Here is the news."),
      ],
    });
    const agent = new LlmAgent({
      name: "a",
      model,
      tools: [new GoogleSearchTool({ bypassMultiToolsLimit: true }), weather],
    });
    const events = await (await startRunner(agent)).send("news?");
    expect(textOf(events.at(-1))).toBe("Here is the news.");
    const [parentRequest, subRequest] = model.requests;
    expect(parentRequest!.config.tools).toEqual([
      {
        functionDeclarations: [
          expect.objectContaining({ name: "google_search_agent" }),
          expect.objectContaining({ name: "get_weather" }),
        ],
      },
    ]);
    expect(subRequest!.config.tools).toEqual([{ googleSearch: {} }]);
    // Alone, the same tool stays native.
    expect(
      await firstRequestTools("gemini-2.0-flash", [new GoogleSearchTool({ bypassMultiToolsLimit: true })]),
    ).toEqual([{ googleSearch: {} }]);
  });
});

describe("BuiltInCodeExecutor", () => {
  it("adds codeExecution to Gemini requests and runs nothing locally", async () => {
    const scripted = new ScriptedModel({
      model: "gemini-2.5-flash",
      steps: [
        {
          content: {
            role: "model",
            parts: [
              { executableCode: { code: "print(6*7)", language: "PYTHON" } },
              { codeExecutionResult: { outcome: "OUTCOME_OK", output: "42\n" } },
              { text: "It is 42." },
            ],
          },
        },
      ],
    });
    const agent = new LlmAgent({ name: "calc", model: scripted, codeExecutor: new BuiltInCodeExecutor() });
    const { send } = await startRunner(agent);
    const events = await send("6 times 7?");
    expect(scripted.requests[0]!.config.tools).toEqual([{ codeExecution: {} }]);
    expect(events).toHaveLength(1);
    expect(textOf(events[0])).toBe("It is 42.");
  });

  it("saves images the model's code produced as artifacts and keeps a reference in the history", async () => {
    const png = Buffer.from("fake-png-bytes").toString("base64");
    const scripted = new ScriptedModel({
      model: "gemini-2.5-flash",
      steps: [
        {
          content: {
            role: "model",
            parts: [
              { executableCode: { code: "plt.plot([1,2]); plt.show()", language: "PYTHON" } },
              { codeExecutionResult: { outcome: "OUTCOME_OK" } },
              { inlineData: { data: png, mimeType: "image/png" } },
              { text: "Here is the chart." },
            ],
          },
        },
      ],
    });
    const agent = new LlmAgent({ name: "plotter", model: scripted, codeExecutor: new BuiltInCodeExecutor() });
    const { send, runner, session } = await startRunner(agent);
    const [event] = await send("Plot it");
    const names = Object.keys(event!.actions.artifactDelta);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^code_output_[\w-]{8}_1\.png$/);
    expect(event!.content!.parts!.slice(2)).toEqual([
      { text: `Saved as artifact: ${names[0]}. ` },
      { text: "Here is the chart." },
    ]);
    const saved = await runner.artifactService.loadArtifact({
      appName: "tools_test",
      userId: "u",
      sessionId: session.id,
      filename: names[0]!,
    });
    expect(saved).toEqual({ inlineData: { data: png, mimeType: "image/png" } });
  });

  it("fails at request time for a non-Gemini model", async () => {
    const agent = new LlmAgent({
      name: "calc",
      model: new ScriptedModel({ model: "gpt-4o-mini", steps: [] }),
      codeExecutor: new BuiltInCodeExecutor(),
    });
    const { send } = await startRunner(agent);
    await expect(send("hi")).rejects.toThrow(
      /BuiltInCodeExecutor is a Gemini built-in tool and the model "gpt-4o-mini"/,
    );
  });
});
