import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError, createEvent } from "@agentkit/core";
import { Client, Pool } from "pg";
import { PostgresCredentialStore, PostgresSessionService, SessionStoreError } from "../src/postgres/index.js";
import { runSessionServiceContract } from "../src/testing/index.js";
import { startPostgres, type PostgresCluster } from "@agentkit/test-support/postgres";
import { canReadTcpTable, clientPorts, pendingTimerSeconds } from "./fixtures/tcp-keepalive.js";

// The contract suites register their tests with jest's functions.
const testApi = { describe, it, expect, beforeEach, afterEach };

let cluster: PostgresCluster;
let url: string;
beforeAll(async () => {
  cluster = await startPostgres();
  url = await cluster.createDatabase("contract");
});
afterAll(async () => {
  await cluster?.stop();
});

// One database shared by every test (each test uses its own app name), as replicas would share it.
runSessionServiceContract(
  "PostgresSessionService",
  async () => ({ service: PostgresSessionService.fromUri(url) }),
  testApi,
  {
    manyEvents: 1000,
  },
);

describe("PostgresSessionService options and URIs", () => {
  it("rejects missing options and non-PostgreSQL URIs with ConfigurationError", () => {
    expect(() => new PostgresSessionService({ connectionString: "" })).toThrow(ConfigurationError);
    expect(() => new PostgresSessionService({} as never)).toThrow(ConfigurationError);
    expect(() => PostgresSessionService.fromUri("mysql://x/y")).toThrow(ConfigurationError);
    expect(() => PostgresSessionService.fromUri("not a uri")).toThrow(ConfigurationError);
  });

  it("works on a pool of the caller's and leaves it open on close", async () => {
    const pool = new Pool({ connectionString: url, max: 2 });
    const service = new PostgresSessionService({ pool });
    await service.createSession({ appName: "pool-app", userId: "u", sessionId: "s" });
    await service.close();
    const { rows } = await pool.query("SELECT count(*)::int AS n FROM agentkit_sessions WHERE app_name = 'pool-app'");
    expect(rows[0].n).toBe(1);
    await pool.end();
  });

  it("appends an event in five round trips: BEGIN, one locking read, INSERT, UPDATE, COMMIT", async () => {
    const pool = new Pool({ connectionString: url, max: 1 });
    const sent: string[] = [];
    pool.on("connect", (client) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
        const first = args[0] as string | { text: string };
        sent.push(typeof first === "string" ? first : first.text);
        return query(...args);
      };
    });
    const service = new PostgresSessionService({ pool });
    const session = await service.createSession({ appName: "trips-app", userId: "u", sessionId: "s" });
    await service.appendEvent({ session, event: createEvent({ author: "user", id: "first" }) });
    sent.length = 0;
    await service.appendEvent({
      session,
      event: createEvent({ author: "agent", id: "second", actions: { stateDelta: { k: 1 } } }),
    });
    expect(sent.map((text) => text.split(" ")[0])).toEqual(["BEGIN", "SELECT", "INSERT", "UPDATE", "COMMIT"]);
    // The read found where the history ended: the second event follows the first, in order, on a fresh reader.
    const reader = new PostgresSessionService({ pool });
    expect(
      (await reader.getSession({ appName: "trips-app", userId: "u", sessionId: "s" }))?.events.map((e) => e.id),
    ).toEqual(["first", "second"]);
    await service.close();
    await reader.close();
    await pool.end();
  });

  it("reports an unreachable server as SESSION_STORE_UNAVAILABLE, without the password", async () => {
    const service = new PostgresSessionService({
      connectionString: `postgres://postgres:secret@127.0.0.1:1/none`,
      poolConfig: { connectionTimeoutMillis: 2000 },
    });
    const attempt = service.initialize();
    await expect(attempt).rejects.toBeInstanceOf(SessionStoreError);
    await expect(attempt).rejects.toMatchObject({ code: "SESSION_STORE_UNAVAILABLE" });
    await attempt.catch((error: Error) => expect(error.message).not.toContain("secret"));
    await service.close();
  });

  (canReadTcpTable ? it : it.skip)(
    "turns TCP keepalive on (10 s) for the pools it creates, overridable, and leaves a caller's pool as it is",
    async () => {
      const own = new PostgresSessionService({ connectionString: url, poolConfig: { application_name: "ka-own" } });
      const off = new PostgresSessionService({
        connectionString: url,
        poolConfig: { application_name: "ka-off", keepAlive: false },
      });
      const callersPool = new Pool({ connectionString: url, application_name: "ka-caller" });
      const callers = new PostgresSessionService({ pool: callersPool });
      const credentials = new PostgresCredentialStore({
        connectionString: url,
        poolConfig: { application_name: "ka-credentials" },
      });
      const admin = new Client({ connectionString: url });
      await admin.connect();
      try {
        const key = { appName: "ka-app", userId: "u", sessionId: "s" };
        await Promise.all([own, off, callers].map((service) => service.getSession(key)));
        await credentials.get({ appName: "ka-app", userId: "u", credentialKey: "k" });
        // Each pool keeps its connection (idle) for a while: look at its socket in the kernel.
        const timer = async (applicationName: string) => {
          const ports = await clientPorts(admin, applicationName);
          expect(ports.length).toBeGreaterThan(0);
          return ports.map((port) => pendingTimerSeconds(port) ?? 0);
        };
        for (const name of ["ka-own", "ka-credentials"])
          for (const seconds of await timer(name)) {
            expect(seconds).toBeGreaterThan(1);
            expect(seconds).toBeLessThanOrEqual(10);
          }
        for (const name of ["ka-off", "ka-caller"])
          for (const seconds of await timer(name)) expect(seconds).toBeLessThan(1); // at most a delayed ACK
      } finally {
        await admin.end();
        await Promise.all([own.close(), off.close(), callers.close(), credentials.close()]);
        await callersPool.end();
      }
    },
  );

  it("closes its own pool: nothing works after close", async () => {
    const service = PostgresSessionService.fromUri(url);
    await service.initialize();
    await service.close();
    await expect(service.getSession({ appName: "a", userId: "u", sessionId: "s" })).rejects.toMatchObject({
      code: "SESSION_STORE_UNAVAILABLE",
    });
  });
});
