import { describe, expect, it } from "@jest/globals";
import { AgentKitError } from "@agentkit/core";
import { frameworkOptionsSchema } from "../src/framework/framework-options.js";
import { MessageConversionError } from "../src/framework/message-conversion-error.js";

describe("framework adapter options", () => {
  it("fills observability and validation defaults", () => {
    const parsed = frameworkOptionsSchema.parse({ observability: {}, validation: {} });
    expect(parsed.observability).toEqual({ enabled: false, includeContent: false, metricsEnabled: true });
    expect(parsed.validation).toEqual({ enabled: false, failFast: true });
  });

  it("rejects out-of-range sampling values", () => {
    expect(() => frameworkOptionsSchema.parse({ topP: 2 })).toThrow();
    expect(() => frameworkOptionsSchema.parse({ maxTokens: 0 })).toThrow();
  });

  it("MessageConversionError is an AgentKitError with its code", () => {
    const error = new MessageConversionError("bad part");
    expect(error).toBeInstanceOf(AgentKitError);
    expect(error.code).toBe("MESSAGE_CONVERSION_ERROR");
  });
});

describe("parseFrameworkOptions and effectiveSampling", () => {
  it("fills defaults and names the bad field in a ConfigurationError", async () => {
    const { parseFrameworkOptions, effectiveSampling } = await import("../src/framework/framework-options.js");
    const settings = parseFrameworkOptions("X", { temperature: 0.5, maxTokens: 10 });
    expect(settings.observability).toEqual({ enabled: false, includeContent: false, metricsEnabled: true });
    expect(settings.validation).toEqual({ enabled: false, failFast: true });
    expect(() => parseFrameworkOptions("X", { temperature: -1 })).toThrow(
      expect.objectContaining({ code: "CONFIGURATION_ERROR", message: expect.stringContaining("temperature") }),
    );
    expect(() => parseFrameworkOptions("X", { onMetrics: 5 as never })).toThrow(/onMetrics/);
    // The request's generation config wins; adapter properties fill the gaps.
    expect(effectiveSampling(settings, { temperature: 0.9, topK: 3 })).toEqual({
      temperature: 0.9,
      maxTokens: 10,
      topK: 3,
    });
  });
});
