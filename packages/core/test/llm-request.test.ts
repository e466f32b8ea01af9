import { describe, expect, it } from "@jest/globals";
import { z } from "zod";
import {
  appendInstructions,
  appendTools,
  createLlmRequest,
  FunctionTool,
  getSystemInstructionText,
  setOutputSchema,
  BaseTool,
} from "../src/index.js";

describe("appendInstructions", () => {
  it("joins instructions with blank lines and skips empty ones", () => {
    const request = createLlmRequest();
    appendInstructions(request, []);
    expect(request.config.systemInstruction).toBeUndefined();
    appendInstructions(request, ["You are helpful.", ""]);
    appendInstructions(request, ["Be brief.", "Answer in French."]);
    expect(request.config.systemInstruction).toBe("You are helpful.\n\nBe brief.\n\nAnswer in French.");
    expect(getSystemInstructionText(request)).toBe("You are helpful.\n\nBe brief.\n\nAnswer in French.");
  });

  it("extends a Content system instruction", () => {
    const request = createLlmRequest({
      config: { systemInstruction: { parts: [{ text: "Part one. " }, { text: "Part two." }] } },
    });
    expect(getSystemInstructionText(request)).toBe("Part one. Part two.");
    appendInstructions(request, ["Three."]);
    expect(request.config.systemInstruction).toBe("Part one. Part two.\n\nThree.");
  });

  it("reads an absent instruction as empty", () => {
    expect(getSystemInstructionText(createLlmRequest())).toBe("");
  });
});

describe("appendTools", () => {
  class ModelSideTool extends BaseTool {
    constructor() {
      super({ name: "google_search", description: "built in" });
    }
  }

  it("records tools by name and adds declarations to one functionDeclarations holder", () => {
    const a = new FunctionTool({ name: "a", description: "A", execute: () => 1 });
    const b = new FunctionTool({
      name: "b",
      description: "B",
      parameters: z.object({ q: z.string() }),
      execute: () => 2,
    });
    const request = createLlmRequest({ config: { tools: [{ googleSearch: {} }] } });
    appendTools(request, [a]);
    appendTools(request, [b]);
    expect(Object.keys(request.toolsDict)).toEqual(["a", "b"]);
    expect(request.toolsDict.b).toBe(b);
    expect(request.config.tools).toHaveLength(2);
    expect(request.config.tools?.[0]).toEqual({ googleSearch: {} });
    expect(request.config.tools?.[1]?.functionDeclarations?.map((d) => d.name)).toEqual(["a", "b"]);
  });

  it("records tools without a declaration but adds no empty holder", () => {
    const request = createLlmRequest();
    const tool = new ModelSideTool();
    appendTools(request, [tool]);
    expect(request.toolsDict.google_search).toBe(tool);
    expect(request.config.tools).toBeUndefined();
  });
});

describe("setOutputSchema", () => {
  it("asks for JSON matching the schema", () => {
    const request = createLlmRequest();
    const schema = { type: "object", properties: { answer: { type: "string" } }, required: ["answer"] };
    setOutputSchema(request, schema);
    expect(request.config.responseMimeType).toBe("application/json");
    expect(request.config.responseJsonSchema).toBe(schema);
  });
});

describe("createLlmRequest", () => {
  it("starts empty and takes overrides", () => {
    expect(createLlmRequest()).toEqual({ contents: [], config: {}, toolsDict: {} });
    expect(createLlmRequest({ model: "m" }).model).toBe("m");
  });
});
