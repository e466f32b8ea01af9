import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { MongoClient } from "mongodb";
import { MongoSessionService, SESSION_COLLECTION_NAME } from "../src/mongodb/index.js";
import { MongoWireServer } from "@agentkit/test-support/mongodb";

// Kill -9 a process that is appending as fast as it can, then check that the store opens
// consistent: every stored event applied exactly once, in order, state matching the events.
const serviceSource = fileURLToPath(new URL("../src/mongodb/index.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("..", import.meta.url));

const writerScript = `
import { MongoSessionService } from ${JSON.stringify(serviceSource)};
import { createEvent } from "@agentkit/core";
const service = new MongoSessionService({ uri: process.env.MONGO_URI, dbName: "crash" });
const session = await service.getSession({ appName: "app", userId: "u1", sessionId: "s1" });
for (let i = 0; ; i++) {
  await service.appendEvent({ session, event: createEvent({ author: "writer", actions: { stateDelta: { n: i, ["k" + i]: i, "user:last": i } } }) });
  if (i === 10) process.stdout.write("appending\\n");
}
`;

function startWriter(uri: string): ChildProcess {
  return spawn(
    process.execPath,
    ["--conditions=@agentkit/source", "--import", "tsx", "--input-type=module", "-e", writerScript],
    {
      cwd: packageDir,
      env: { ...process.env, MONGO_URI: uri, NODE_OPTIONS: "" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
}

describe("MongoSessionService after a writer process is killed mid-append", () => {
  let server: MongoWireServer;
  let raw: MongoClient;
  beforeAll(async () => {
    server = await MongoWireServer.start();
    raw = await MongoClient.connect(server.uri);
  });
  afterAll(async () => {
    await raw.close();
    await server.close();
  });

  it("opens consistent and lets the next writer continue, over several kills", async () => {
    const setup = new MongoSessionService({ uri: server.uri, dbName: "crash" });
    await setup.createSession({ appName: "app", userId: "u1", sessionId: "s1" });
    await setup.close();
    for (let round = 0; round < 3; round++) {
      const child = startWriter(server.uri);
      let stderr = "";
      child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
      await new Promise<void>((resolve, reject) => {
        child.stdout?.on("data", (d: Buffer) => d.toString().includes("appending") && resolve());
        child.once("exit", (code) => reject(new Error(`writer exited early (${code}): ${stderr}`)));
      });
      // Kill at a random point of an append.
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 40)));
      child.kill("SIGKILL");
      await exited;

      const reader = new MongoSessionService({ uri: server.uri, dbName: "crash" });
      try {
        const session = await reader.getSession({ appName: "app", userId: "u1", sessionId: "s1" });
        const events = session!.events;
        expect(events.length).toBeGreaterThan(10 * (round + 1));
        // Each writer restarts its counter: n runs 0..k, then 0..k' and so on, without gaps.
        const ns = events.map((e) => e.actions.stateDelta.n as number);
        for (let i = 1; i < ns.length; i++) expect(ns[i] === ns[i - 1]! + 1 || ns[i] === 0).toBe(true);
        expect(session!.state.n).toBe(ns.at(-1));
        expect(session!.state["user:last"]).toBe(ns.at(-1));
        for (const n of ns) expect(session!.state[`k${n}`]).toBe(n);
        const doc = await raw.db("crash").collection(SESSION_COLLECTION_NAME).findOne({ id: "s1" });
        expect(doc?.revision).toBe(events.length);
        expect(doc?.updateTime).toBe(session!.lastUpdateTime);
      } finally {
        await reader.close();
      }
    }
  }, 60_000);
});
