import { describe, expect, it, jest } from "@jest/globals";
import { z } from "zod";
import {
  BaseAgent,
  ConfigurationError,
  createLlmRequest,
  FunctionTool,
  InMemorySessionService,
  InvocationContext,
  PluginManager,
  ToolContext,
  appendTools,
  type Event,
  type ToolConfirmation,
} from "../src/index.js";

class StubAgent extends BaseAgent {
  protected override async *runAsyncImpl(): AsyncGenerator<Event, void, void> {}
}

async function toolContext(options: { toolConfirmation?: ToolConfirmation } = {}): Promise<ToolContext> {
  const sessionService = new InMemorySessionService();
  const session = await sessionService.createSession({ appName: "app", userId: "user-1", state: { counter: 1 } });
  const invocation = new InvocationContext({
    invocationId: "e-1",
    agent: new StubAgent({ name: "agent" }),
    session,
    sessionService,
    pluginManager: new PluginManager(),
  });
  return new ToolContext(invocation, { functionCallId: "call-1", toolConfirmation: options.toolConfirmation });
}

describe("FunctionTool declaration", () => {
  it("converts a zod schema with nested objects, arrays, enums, optional fields and descriptions", () => {
    const tool = new FunctionTool({
      name: "book_flight",
      description: "Books a flight.",
      parameters: z.object({
        from: z.string().describe("IATA code of the origin"),
        passengers: z.array(z.object({ name: z.string(), age: z.number().int().optional() })),
        cabin: z.enum(["economy", "business"]),
        note: z.string().optional(),
        seats: z.number().default(1),
      }),
      execute: async () => ({}),
    });
    const declaration = tool.getDeclaration();
    expect(declaration.name).toBe("book_flight");
    expect(declaration.description).toBe("Books a flight.");
    expect(declaration.parameters).toBeUndefined();
    const schema = declaration.parametersJsonSchema as Record<string, unknown>;
    expect(schema.$schema).toBeUndefined();
    expect(schema.additionalProperties).toBeUndefined();
    expect(schema.type).toBe("object");
    // Defaulted and optional fields are optional for the caller (the model).
    expect(schema.required).toEqual(["from", "passengers", "cabin"]);
    const props = schema.properties as Record<string, Record<string, unknown>>;
    expect(props.from).toEqual({ type: "string", description: "IATA code of the origin" });
    expect(props.cabin).toEqual({ type: "string", enum: ["economy", "business"] });
    expect(props.note).toEqual({ type: "string" });
    expect(props.seats).toMatchObject({ type: "number", default: 1 });
    const passengers = props.passengers as { type: string; items: Record<string, unknown> };
    expect(passengers.type).toBe("array");
    expect(passengers.items.type).toBe("object");
    expect(passengers.items.required).toEqual(["name"]);
    expect(passengers.items.additionalProperties).toBeUndefined();
    expect((passengers.items.properties as Record<string, unknown>).age).toMatchObject({ type: "integer" });
  });

  it("declares an empty object schema when there are no parameters", () => {
    const tool = new FunctionTool({ name: "now", description: "Current time.", execute: () => "12:00" });
    expect(tool.getDeclaration()).toEqual({
      name: "now",
      description: "Current time.",
      parametersJsonSchema: { type: "object", properties: {} },
    });
  });

  it("returns a fresh copy of the schema so adapters may mutate it", () => {
    const tool = new FunctionTool({
      name: "t",
      description: "d",
      parameters: z.object({ a: z.string() }),
      execute: () => 1,
    });
    const first = tool.getDeclaration().parametersJsonSchema as { properties: Record<string, unknown> };
    first.properties.a = "broken";
    expect(
      (tool.getDeclaration().parametersJsonSchema as { properties: Record<string, unknown> }).properties.a,
    ).toEqual({ type: "string" });
  });

  it("is added to a request by processLlmRequest", async () => {
    const tool = new FunctionTool({ name: "t", description: "d", execute: () => 1 });
    const request = createLlmRequest();
    await tool.processLlmRequest({ toolContext: await toolContext(), llmRequest: request });
    expect(request.toolsDict.t).toBe(tool);
    expect(request.config.tools?.[0]?.functionDeclarations?.[0]?.name).toBe("t");
  });

  it("validates tool names", () => {
    const make = (name: string) => new FunctionTool({ name, description: "d", execute: () => 1 });
    expect(make("get-weather_2").name).toBe("get-weather_2");
    expect(make("a".repeat(64)).name).toHaveLength(64);
    expect(() => make("a".repeat(65))).toThrow(ConfigurationError);
    expect(() => make("")).toThrow(ConfigurationError);
    expect(() => make("get weather")).toThrow(/Invalid tool name/);
    expect(() => make("tools.get")).toThrow(ConfigurationError);
  });

  it("rejects non-object and unrepresentable schemas at construction", () => {
    expect(() => new FunctionTool({ name: "t", description: "d", parameters: z.string(), execute: () => 1 })).toThrow(
      /object schema/,
    );
    expect(
      () => new FunctionTool({ name: "t", description: "d", parameters: z.object({ at: z.date() }), execute: () => 1 }),
    ).toThrow(ConfigurationError);
    const notObject = { type: "string" } as unknown as { type: "object" };
    expect(() => new FunctionTool({ name: "t", description: "d", parameters: notObject, execute: () => 1 })).toThrow(
      ConfigurationError,
    );
  });
});

describe("FunctionTool.runAsync", () => {
  const weather = new FunctionTool({
    name: "get_weather",
    description: "Weather of a city.",
    parameters: z.object({
      city: z.string(),
      days: z.number().int().min(1).default(1),
      units: z.enum(["c", "f"]).optional(),
    }),
    execute: async (args) => {
      // Typed from the schema: these lines fail the typecheck if inference breaks.
      const city: string = args.city;
      const days: number = args.days;
      const units: "c" | "f" | undefined = args.units;
      // @ts-expect-error not a declared parameter
      void args.country;
      return { city, days, units: units ?? "c" };
    },
  });

  it("passes parsed arguments (with defaults) and returns the result as is", async () => {
    const result = await weather.runAsync({ args: { city: "Paris" }, toolContext: await toolContext() });
    expect(result).toEqual({ city: "Paris", days: 1, units: "c" });
  });

  it("answers invalid arguments with an error naming the fields instead of throwing", async () => {
    const result = (await weather.runAsync({ args: { days: 0, units: "k" }, toolContext: await toolContext() })) as {
      error: string;
    };
    expect(result.error.startsWith("Invalid arguments for tool get_weather: ")).toBe(true);
    expect(result.error).toMatch(/city: /);
    expect(result.error).toMatch(/days: /);
    expect(result.error).toMatch(/units: /);
  });

  it("reports nested field paths", async () => {
    const tool = new FunctionTool({
      name: "t",
      description: "d",
      parameters: z.object({ items: z.array(z.object({ qty: z.number() })) }),
      execute: () => "ok",
    });
    const result = (await tool.runAsync({
      args: { items: [{ qty: 1 }, { qty: "x" }] },
      toolContext: await toolContext(),
    })) as { error: string };
    expect(result.error).toMatch(/items\.1\.qty: /);
  });

  it("gives the tool context to execute and returns non-object results untouched", async () => {
    const tool = new FunctionTool({
      name: "bump",
      description: "d",
      execute: (_args, ctx) => {
        ctx.state.set("counter", (ctx.state.get<number>("counter") ?? 0) + 1);
        return 42;
      },
    });
    const ctx = await toolContext();
    expect(await tool.runAsync({ args: {}, toolContext: ctx })).toBe(42);
    expect(ctx.actions.stateDelta).toEqual({ counter: 2 });
  });

  it("propagates errors thrown by execute", async () => {
    const tool = new FunctionTool({
      name: "boom",
      description: "d",
      execute: async () => {
        throw new Error("kaput");
      },
    });
    await expect(tool.runAsync({ args: {}, toolContext: await toolContext() })).rejects.toThrow("kaput");
  });

  it("accepts a plain JSON schema and only checks that arguments are an object", async () => {
    const execute = jest.fn((args: Record<string, unknown>) => args);
    const tool = new FunctionTool({
      name: "raw",
      description: "d",
      parameters: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { q: { type: "string" } },
        required: ["q"],
      },
      execute,
    });
    expect(tool.getDeclaration().parametersJsonSchema).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
    // Not validated against the schema: a missing required field reaches execute.
    expect(await tool.runAsync({ args: { other: 1 }, toolContext: await toolContext() })).toEqual({ other: 1 });
    const bad = (await tool.runAsync({
      args: [1] as unknown as Record<string, unknown>,
      toolContext: await toolContext(),
    })) as { error: string };
    expect(bad.error).toMatch(/^Invalid arguments for tool raw: /);
    expect(execute).toHaveBeenCalledTimes(1);
  });
});

describe("FunctionTool confirmation", () => {
  const makeTool = (requireConfirmation: boolean | ((args: { amount: number }) => boolean | Promise<boolean>)) => {
    const execute = jest.fn(async (args: { amount: number }) => ({ done: true, amount: args.amount }));
    const tool = new FunctionTool({
      name: "transfer_money",
      description: "Transfers money.",
      parameters: z.object({ amount: z.number() }),
      requireConfirmation,
      execute,
    });
    return { tool, execute };
  };

  it("requests confirmation and does not execute when no answer is present", async () => {
    const { tool, execute } = makeTool(true);
    const ctx = await toolContext();
    const result = await tool.runAsync({ args: { amount: 10 }, toolContext: ctx });
    expect(result).toEqual({ error: "This tool call requires confirmation, please approve or reject." });
    expect(execute).not.toHaveBeenCalled();
    expect(ctx.actions.requestedToolConfirmations).toEqual({
      "call-1": {
        hint:
          "Please approve or reject the tool call transfer_money() by responding with a FunctionResponse with an " +
          "expected ToolConfirmation payload.",
        confirmed: false,
      },
    });
    expect(ctx.actions.skipSummarization).toBe(true);
  });

  it("returns a rejection error when the user declined", async () => {
    const { tool, execute } = makeTool(true);
    const ctx = await toolContext({ toolConfirmation: { confirmed: false } });
    expect(await tool.runAsync({ args: { amount: 10 }, toolContext: ctx })).toEqual({
      error: "This tool call is rejected.",
    });
    expect(execute).not.toHaveBeenCalled();
    expect(ctx.actions.requestedToolConfirmations).toEqual({});
  });

  it("executes once confirmed", async () => {
    const { tool, execute } = makeTool(true);
    const ctx = await toolContext({ toolConfirmation: { confirmed: true } });
    expect(await tool.runAsync({ args: { amount: 10 }, toolContext: ctx })).toEqual({ done: true, amount: 10 });
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("asks the predicate with the parsed arguments", async () => {
    const predicate = jest.fn(async (args: { amount: number }) => args.amount > 100);
    const { tool, execute } = makeTool(predicate);
    expect(await tool.runAsync({ args: { amount: 5 }, toolContext: await toolContext() })).toEqual({
      done: true,
      amount: 5,
    });
    const ctx = await toolContext();
    expect(await tool.runAsync({ args: { amount: 500 }, toolContext: ctx })).toEqual({
      error: "This tool call requires confirmation, please approve or reject.",
    });
    expect(Object.keys(ctx.actions.requestedToolConfirmations)).toEqual(["call-1"]);
    expect(predicate.mock.calls.map((c) => c[0])).toEqual([{ amount: 5 }, { amount: 500 }]);
    expect(execute).toHaveBeenCalledTimes(1);
  });

  it("ignores confirmation answers when none is required", async () => {
    const { tool } = makeTool(false);
    const ctx = await toolContext({ toolConfirmation: { confirmed: false } });
    expect(await tool.runAsync({ args: { amount: 1 }, toolContext: ctx })).toEqual({ done: true, amount: 1 });
  });

  it("validates arguments before asking for confirmation", async () => {
    const { tool } = makeTool(true);
    const ctx = await toolContext();
    const result = (await tool.runAsync({ args: {}, toolContext: ctx })) as { error: string };
    expect(result.error).toMatch(/^Invalid arguments for tool transfer_money: amount: /);
    expect(ctx.actions.requestedToolConfirmations).toEqual({});
  });
});

describe("FunctionTool in a request", () => {
  it("keeps declarations of several tools in one holder", () => {
    const a = new FunctionTool({ name: "a", description: "A", execute: () => 1 });
    const b = new FunctionTool({
      name: "b",
      description: "B",
      parameters: z.object({ x: z.boolean() }),
      execute: () => 2,
    });
    const request = createLlmRequest();
    appendTools(request, [a, b]);
    expect(request.config.tools).toHaveLength(1);
    expect(request.config.tools?.[0]?.functionDeclarations?.map((d) => d.name)).toEqual(["a", "b"]);
  });
});
