import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { InMemoryArtifactService } from "../src/index.js";
import { runArtifactServiceContract } from "../src/testing/index.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

runArtifactServiceContract(
  "InMemoryArtifactService",
  async () => ({ service: new InMemoryArtifactService() }),
  testApi,
);
