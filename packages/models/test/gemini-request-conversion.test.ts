import { describe, expect, it } from "@jest/globals";
import { createLlmRequest } from "@agentkit/core";
import { toLiveConnectConfig } from "../src/gemini/index.js";
import { stripModelPrefix, toGeminiRequest, withoutCachedFields } from "../src/gemini/request-conversion.js";

describe("toGeminiRequest", () => {
  const request = createLlmRequest({
    contents: [
      { role: "user", parts: [{ text: "a" }] },
      { role: "model", parts: [] },
      {
        role: "model",
        parts: [{ functionCall: { id: "g-1", name: "f", args: {}, partialArgs: [], willContinue: false } }],
      },
      { role: "tool", parts: [{ functionResponse: { id: "g-1", name: "f", response: { ok: 1 } } }] },
    ],
    config: {
      labels: { team: "x" },
      temperature: 0,
      httpOptions: { timeout: 5 },
      abortSignal: new AbortController().signal,
      cachedContent: undefined,
    },
  });

  it("drops empty contents, maps non-model roles to user and removes Vertex-only fields on the Gemini API", () => {
    const params = toGeminiRequest(request, "google/gemini-2.5-flash", { vertex: false });
    expect(params.model).toBe("gemini-2.5-flash");
    expect(params.contents).toEqual([
      { role: "user", parts: [{ text: "a" }] },
      { role: "model", parts: [{ functionCall: { id: "g-1", name: "f", args: {} } }] },
      { role: "user", parts: [{ functionResponse: { id: "g-1", name: "f", response: { ok: 1 } } }] },
    ]);
    expect(params.config).toMatchObject({
      temperature: 0,
      automaticFunctionCalling: { disable: true },
      automaticContinuation: false,
    });
    expect(params.config).not.toHaveProperty("labels");
    expect(params.config).not.toHaveProperty("httpOptions");
    expect(params.config).not.toHaveProperty("cachedContent");
    expect(params.config?.abortSignal).toBe(request.config.abortSignal);
  });

  it("keeps Vertex-only fields on Vertex AI", () => {
    const params = toGeminiRequest(request, "gemini-2.5-flash", { vertex: true });
    expect(params.config).toMatchObject({ labels: { team: "x" } });
    expect((params.contents as Array<{ parts: Array<{ functionCall?: unknown }> }>)[1]!.parts[0]!.functionCall).toEqual(
      { id: "g-1", name: "f", args: {}, partialArgs: [], willContinue: false },
    );
  });

  it("leaves the cached fields out of a request that names a cache", () => {
    expect(withoutCachedFields({ systemInstruction: "s", tools: [], toolConfig: {}, temperature: 1 })).toEqual({
      temperature: 1,
    });
    expect(stripModelPrefix("gemini/gemini-2.0-flash")).toBe("gemini-2.0-flash");
    expect(stripModelPrefix("gemini-2.0-flash")).toBe("gemini-2.0-flash");
  });
});

describe("thought signatures for Gemini 3", () => {
  const history = createLlmRequest({
    contents: [
      { role: "user", parts: [{ text: "q" }] },
      { role: "model", parts: [{ functionCall: { name: "a", args: {} } }, { functionCall: { name: "b", args: {} } }] },
      {
        role: "user",
        parts: [{ functionResponse: { name: "a", response: {} } }, { functionResponse: { name: "b", response: {} } }],
      },
      { role: "model", parts: [{ functionCall: { name: "c", args: {} }, thoughtSignature: "real" }] },
    ],
  });
  const modelParts = (model: string) =>
    (
      toGeminiRequest(history, model, { vertex: false }).contents as Array<{
        role: string;
        parts: Array<Record<string, unknown>>;
      }>
    )
      .filter((c) => c.role === "model")
      .map((c) => c.parts);

  it("puts the documented placeholder on the first unsigned call of a model turn (calls made by another model)", () => {
    const [unsigned, signed] = modelParts("gemini-3-pro-preview");
    expect(unsigned![0]!.thoughtSignature).toBe("skip_thought_signature_validator");
    expect(unsigned![1]!.thoughtSignature).toBeUndefined();
    expect(signed![0]!.thoughtSignature).toBe("real");
  });

  it("leaves older models' requests untouched", () => {
    const [unsigned] = modelParts("gemini-2.5-flash");
    expect(unsigned![0]!.thoughtSignature).toBeUndefined();
  });
});

describe("toLiveConnectConfig", () => {
  it("takes model settings from the request config and lets liveConnectConfig override them", () => {
    const config = toLiveConnectConfig(
      createLlmRequest({
        config: {
          systemInstruction: "s",
          temperature: 0.1,
          responseModalities: ["AUDIO"],
          stopSequences: ["x"],
          abortSignal: new AbortController().signal,
        },
        liveConnectConfig: {
          responseModalities: ["TEXT"],
          sessionResumption: { handle: "h" },
          speechConfig: undefined,
        },
      }),
    );
    expect(config).toEqual({
      systemInstruction: "s",
      temperature: 0.1,
      responseModalities: ["TEXT"],
      sessionResumption: { handle: "h" },
    });
  });
});
