import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CallbackContext,
  CredentialCipher,
  InMemorySessionService,
  InvocationContext,
  LlmAgent,
  PluginManager,
  StoredCredentialService,
  type AuthConfig,
  type CredentialStore,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { MongoCredentialStore } from "../src/mongodb/index.js";
import { PostgresCredentialStore } from "../src/postgres/index.js";
import { SqliteCredentialStore } from "../src/sqlite/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";

const SECRET = "planted-refresh-token-5f2c9a";
const config: AuthConfig = {
  authScheme: { type: "oauth2", flows: {} },
  credentialKey: "calendar",
  exchangedAuthCredential: { authType: "oauth2", oauth2: { accessToken: "planted-access-1", refreshToken: SECRET } },
};

async function contextFor(userId: string, appName = "app"): Promise<CallbackContext> {
  const sessionService = new InMemorySessionService();
  const session = await sessionService.createSession({ appName, userId });
  const agent = new LlmAgent({ name: "a", model: new ScriptedModel() });
  return new CallbackContext(
    new InvocationContext({ invocationId: "e-1", agent, session, sessionService, pluginManager: new PluginManager() }),
  );
}

const cipher = new CredentialCipher([CredentialCipher.generateKey()]);
let tmp: string;
let cluster: PostgresCluster;
let pgUrl: string;
let mongo: MongoWireServer;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "agentkit-credentials-"));
  cluster = await startPostgres();
  pgUrl = await cluster.createDatabase("credentials");
  mongo = await MongoWireServer.start();
}, 60_000);

afterAll(async () => {
  await mongo?.close();
  await cluster?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

const backends: [string, () => CredentialStore, (store: CredentialStore) => Promise<string>][] = [
  [
    "SQLite",
    () => new SqliteCredentialStore({ path: join(tmp, "sessions.db") }),
    async () => readFileSync(join(tmp, "sessions.db")).toString("latin1") + readWal(),
  ],
  [
    "PostgreSQL",
    () => PostgresCredentialStore.fromUri(pgUrl),
    async (store) => {
      const rows = await (store as unknown as { query(t: string, v: unknown[]): Promise<{ rows: unknown[] }> }).query(
        "SELECT * FROM agentkit_credentials",
        [],
      );
      return JSON.stringify(rows.rows);
    },
  ],
  [
    "MongoDB",
    () => new MongoCredentialStore({ uri: mongo.uri, dbName: "credentials" }),
    async (store) => {
      const collection = await (
        store as unknown as { collection(): Promise<{ find(): { toArray(): Promise<unknown[]> } }> }
      ).collection();
      return JSON.stringify(await collection.find().toArray());
    },
  ],
];

function readWal(): string {
  try {
    return readFileSync(join(tmp, "sessions.db-wal")).toString("latin1");
  } catch {
    return "";
  }
}

describe.each(backends)("StoredCredentialService on %s", (_name, makeStore, dump) => {
  it("stores per app and user, survives a new connection, holds only ciphertext", async () => {
    const store = makeStore();
    const service = new StoredCredentialService({ store, cipher });
    const alice = await contextFor("alice");
    await service.saveCredential(config, alice);
    expect(await service.loadCredential(config, await contextFor("bob"))).toBeUndefined();
    expect(await service.loadCredential(config, await contextFor("alice", "other-app"))).toBeUndefined();
    const raw = await dump(store);
    expect(raw).not.toContain(SECRET);
    expect(raw).not.toContain("planted-access-1");
    await service.close();

    // Another replica (a new connection to the same database) reads it back.
    const again = new StoredCredentialService({ store: makeStore(), cipher });
    expect((await again.loadCredential(config, alice))?.oauth2?.refreshToken).toBe(SECRET);
    await again.saveCredential(
      { ...config, exchangedAuthCredential: { authType: "oauth2", oauth2: { accessToken: "planted-access-2" } } },
      alice,
    );
    expect((await again.loadCredential(config, alice))?.oauth2?.accessToken).toBe("planted-access-2");
    await again.deleteCredential(config, alice);
    expect(await again.loadCredential(config, alice)).toBeUndefined();
    await again.close();
  });
});
