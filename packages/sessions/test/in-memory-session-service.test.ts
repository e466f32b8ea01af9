import { afterEach, beforeEach, describe, expect, it } from "@jest/globals";
import { InMemoryMemoryService, InMemorySessionService } from "../src/index.js";
import { runMemoryServiceContract, runSessionServiceContract } from "../src/testing/index.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

runSessionServiceContract("InMemorySessionService", async () => ({ service: new InMemorySessionService() }), testApi, {
  manyEvents: 5000,
});
runMemoryServiceContract("InMemoryMemoryService", async () => ({ service: new InMemoryMemoryService() }), testApi);
