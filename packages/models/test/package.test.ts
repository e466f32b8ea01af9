import { describe, expect, it } from "@jest/globals";
import { MODELS_PACKAGE } from "../src/index.js";

describe("@agentkit/models", () => {
  it("loads without importing any vendor SDK", async () => {
    expect(MODELS_PACKAGE).toBe("@agentkit/models");
  });
});
