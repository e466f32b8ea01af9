// What a server loads, checked in a fresh Node process: importing it loads no part of Node's
// fetch implementation (undici: an ESM import of `node:http` does, its ESM wrapper reading every
// export) and not Express; an API server serves agent flows without ever loading Express, and
// builds its Express app (loading Express) on the first request the lean path does not take.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

/** Runs `body` as an ES module with the sources (tsx) in this package; resolves what it prints as JSON. */
function inFreshNode<T>(body: string): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--conditions=@agentkit/source", "--import", "tsx", "--input-type=module", "-e", body],
      { cwd: packageDir },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout) as T),
    );
  });
}

// Express and its dependencies are CommonJS: loaded, they are in the require cache.
const EXPRESS_LOADED = `async () => {
  const cache = (await import("node:module")).createRequire(import.meta.url).cache;
  return Object.keys(cache).some((file) => /[\\\\/]express[\\\\/]index\\.js$/.test(file));
}`;

describe("start-up modules", () => {
  it("importing @agentkit/server loads neither Node's fetch implementation nor Express", async () => {
    const seen = await inFreshNode<{ modules: string[]; express: boolean }>(`
      await import("@agentkit/server");
      const express = await (${EXPRESS_LOADED})();
      console.log(JSON.stringify({ modules: process.moduleLoadList, express }));
    `);
    expect(seen.modules.filter((m) => m.includes("undici"))).toEqual([]);
    expect(seen.express).toBe(false);
  });

  it("an API server answers agent flows without Express and builds its app on the first other request", async () => {
    const seen = await inFreshNode<{
      created: number;
      ran: number;
      answer: string;
      afterFlows: boolean;
      listApps: [number, unknown];
      afterListApps: boolean;
    }>(`
      const { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService, LlmAgent } = await import("@agentkit/core");
      const { ScriptedModel } = await import("@agentkit/core/testing");
      const { createAgentServer, createStaticAgentLoader } = await import("@agentkit/server");
      const loaded = ${EXPRESS_LOADED};
      const model = new ScriptedModel();
      model.push(ScriptedModel.text("hello from the lean path"));
      const server = createAgentServer({
        mode: "api",
        loader: createStaticAgentLoader({ apps: { A: new LlmAgent({ name: "a", model }) } }),
        sessionService: new InMemorySessionService(),
        artifactService: new InMemoryArtifactService(),
        memoryService: new InMemoryMemoryService(),
      });
      const { url } = await server.listen();
      const post = (path, body) =>
        fetch(url + path, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
      const created = await post("/apps/A/users/u/sessions", {});
      const { id } = await created.json();
      const ran = await post("/run", { appName: "A", userId: "u", sessionId: id, newMessage: { role: "user", parts: [{ text: "hi" }] } });
      const events = await ran.json();
      const afterFlows = await loaded();
      const listApps = await fetch(url + "/list-apps");
      const result = {
        created: created.status,
        ran: ran.status,
        answer: events.flatMap((e) => e.content?.parts ?? []).map((p) => p.text).join(""),
        afterFlows,
        listApps: [listApps.status, await listApps.json()],
        afterListApps: await loaded(),
      };
      await server.close();
      console.log(JSON.stringify(result));
    `);
    expect(seen).toEqual({
      created: 200,
      ran: 200,
      answer: "hello from the lean path",
      afterFlows: false,
      listApps: [200, ["A"]],
      afterListApps: true,
    });
  });
});
