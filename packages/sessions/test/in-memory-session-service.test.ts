import { InMemoryMemoryService, InMemorySessionService } from "../src/index.js";
import { runMemoryServiceContract, runSessionServiceContract } from "../src/testing/index.js";

runSessionServiceContract("InMemorySessionService", async () => ({ service: new InMemorySessionService() }), {
  manyEvents: 5000,
});
runMemoryServiceContract("InMemoryMemoryService", async () => ({ service: new InMemoryMemoryService() }));
