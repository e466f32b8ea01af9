import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { MongoClient } from "mongodb";
import { MongoMemoryService, MongoSessionService } from "../src/mongodb/index.js";
import { runMemoryServiceContract, runSessionServiceContract } from "../src/testing/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

// The contract suites through the official driver against the wire-protocol test server. Each
// test gets a fresh service (its own client) on one shared server; apps are unique per test.
let server: MongoWireServer;
beforeAll(async () => {
  server = await MongoWireServer.start();
});
afterAll(async () => {
  await server.close();
});

runSessionServiceContract(
  "MongoSessionService (uri, wire test server)",
  async () => ({ service: new MongoSessionService({ uri: server.uri, dbName: "contract" }) }),
  testApi,
  {
    manyEvents: 300,
  },
);

runSessionServiceContract(
  "MongoSessionService (borrowed client)",
  async () => {
    const client = new MongoClient(server.uri);
    const service = new MongoSessionService({ client, dbName: "contract_client" });
    return {
      service,
      cleanup: async () => {
        await service.close();
        // The service must not have closed the client it borrowed.
        await client.db("admin").command({ ping: 1 });
        await client.close();
      },
    };
  },
  testApi,
  { manyEvents: 50 },
);

runMemoryServiceContract(
  "MongoMemoryService (wire test server)",
  async () => ({
    service: new MongoMemoryService({ uri: `${server.uri.replace("/?", "/memory_contract?")}` }),
  }),
  testApi,
);
