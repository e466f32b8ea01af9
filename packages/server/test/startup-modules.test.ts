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

  it("a trace recorder without span processors records runs without loading the OpenTelemetry SDK; with one it does", async () => {
    const seen = await inFreshNode<{ spans: number; sdk: boolean; sdkWithExport: boolean }>(`
      const loadedUrls = [];
      (await import("node:module")).registerHooks({
        resolve(specifier, context, next) {
          const resolved = next(specifier, context);
          loadedUrls.push(resolved.url);
          return resolved;
        },
      });
      const sdkLoaded = () => loadedUrls.some((url) => url.includes("/@opentelemetry/sdk-trace/"));
      const { InMemoryRunner, LlmAgent } = await import("@agentkit/core");
      const { ScriptedModel } = await import("@agentkit/core/testing");
      const { createTraceRecorder } = await import("@agentkit/server/devtools");
      const run = async (recorder) => {
        const runner = new InMemoryRunner({ agent: new LlmAgent({ name: "a", model: new ScriptedModel({ steps: [ScriptedModel.text("hi")] }) }), plugins: [recorder.plugin] });
        const session = await runner.sessionService.createSession({ appName: runner.appName, userId: "u" });
        for await (const _ of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: { role: "user", parts: [{ text: "go" }] } }));
        await runner.close();
        return recorder.spansForSession(session.id).length;
      };
      const plain = createTraceRecorder();
      const spans = await run(plain);
      await plain.shutdown();
      const sdk = sdkLoaded();
      const exporting = createTraceRecorder({
        spanProcessors: () => [{ onStart() {}, onEnd() {}, forceFlush: async () => {}, shutdown: async () => {} }],
      });
      await run(exporting);
      await exporting.shutdown();
      console.log(JSON.stringify({ spans, sdk, sdkWithExport: sdkLoaded() }));
    `);
    expect(seen).toEqual({ spans: 3, sdk: false, sdkWithExport: true });
  });
});
