// The dev server's close() closes everything it opened, also when one step fails: an app's
// plugin whose close throws must not leave the session store's database open.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startDevServer } from "../src/start-dev-server.js";
import { tempAgentsDir, type TempAgentsDir } from "./support/cli-process.js";

const FAILING_CLOSE_APP = `import { App, BaseLlm, BasePlugin, LlmAgent } from "@agentkit/core";
class Answer extends BaseLlm {
  constructor() { super({ model: "answer" }); }
  async *generateContentAsync() {
    yield { content: { role: "model", parts: [{ text: "done" }] } };
  }
}
class FailsToClose extends BasePlugin {
  constructor() { super("fails_to_close"); }
  async close() { throw new Error("plugin close failed"); }
}
export const app = new App({ name: "closing_app", rootAgent: new LlmAgent({ name: "closer", model: new Answer() }), plugins: [new FailsToClose()] });
`;

describe("closing the dev server", () => {
  let agents: TempAgentsDir;
  beforeAll(() => {
    agents = tempAgentsDir("agentkit-close-");
    agents.write("closing_app/agent.ts", FAILING_CLOSE_APP);
  });
  afterAll(() => agents.remove());

  it("closes the session store although an app's plugin fails to close, and reports that failure", async () => {
    const db = join(agents.dir, "sessions.db");
    const server = await startDevServer({
      mode: "api",
      agentsDir: agents.dir,
      host: "127.0.0.1",
      port: 0,
      reload: false,
      allowOrigins: [],
      warmUp: false,
      sessionServiceUri: `sqlite://${db}`,
      artifactServiceUri: "memory://",
      memoryServiceUri: "memory://",
      logLevel: "error",
      log: { write: () => true } as unknown as NodeJS.WritableStream,
    });
    const created = await fetch(`${server.url}/apps/closing_app/users/u/sessions`, { method: "POST" });
    const { id } = (await created.json()) as { id: string };
    const run = await fetch(`${server.url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        appName: "closing_app",
        userId: "u",
        sessionId: id,
        newMessage: { role: "user", parts: [{ text: "hi" }] },
      }),
    });
    expect(run.status).toBe(200);
    // SQLite keeps its write-ahead log while a connection is open and removes it when the last
    // one closes: it is there now, and gone only if the session store was closed.
    expect(existsSync(`${db}-wal`)).toBe(true);

    await expect(server.close()).rejects.toThrow(/plugin close failed/);
    expect(existsSync(`${db}-wal`)).toBe(false);
    // The server itself stopped listening too.
    await expect(fetch(`${server.url}/list-apps`)).rejects.toThrow();
  });
});
