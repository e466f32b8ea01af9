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
