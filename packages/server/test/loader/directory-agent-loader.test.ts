import { afterAll, describe, expect, it } from "@jest/globals";
import { resolve } from "node:path";
import { App, LlmAgent, ModelRegistry, SequentialAgent, type BaseLlm } from "@agentkit/core";
import { createDirectoryAgentLoader, AgentLoadError } from "../../src/loader/index.js";
import { AppNotFoundError } from "../../src/errors/server-errors.js";
import { agentModule, makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";

const fixturesDir = resolve(import.meta.dirname, "fixtures/agents");
const temps: TempAgentsDir[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => t.cleanup()));
});
async function temp(files: Record<string, string>): Promise<TempAgentsDir> {
  const t = await makeAgentsDir(files);
  temps.push(t);
  return t;
}

describe("createDirectoryAgentLoader: discovery", () => {
  it("lists the folders holding an agent file, sorted, skipping dot, underscore and entry-less folders", async () => {
    const loader = createDirectoryAgentLoader({ agentsDir: fixturesDir });
    expect(await loader.listApps()).toEqual([
      "app_export",
      "llm_app",
      "module_js",
      "module_ts",
      "named_app",
      "workflow",
    ]);
    await loader.close();
  });

  it("ignores node_modules and plain files, and lists new folders as they appear", async () => {
    const t = await temp({
      "zeta/agent.ts": agentModule("zeta", `"z"`),
      "node_modules/pkg/index.js": "export {};",
      "loose.ts": "export {};",
    });
    await t.write("node_modules/agent.ts", agentModule("nm", `"nm"`));
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir });
    expect(await loader.listApps()).toEqual(["zeta"]);
    await t.write("alpha/root_agent.yaml", "name: alpha\nmodel: m\n");
    expect(await loader.listApps()).toEqual(["alpha", "zeta"]);
    await loader.close();
  });

  it("lists nothing for a missing agents directory", async () => {
    const loader = createDirectoryAgentLoader({ agentsDir: resolve(fixturesDir, "does-not-exist") });
    expect(await loader.listApps()).toEqual([]);
    await loader.close();
  });
});

describe("createDirectoryAgentLoader: modules", () => {
  const loader = createDirectoryAgentLoader({ agentsDir: fixturesDir });
  afterAll(() => loader.close());

  it("loads a TypeScript module exporting rootAgent, with its relative .js import of a .ts sibling", async () => {
    const app = await loader.loadApp("module_ts");
    expect(app.name).toBe("module_ts");
    expect(app.rootAgent).toBeInstanceOf(LlmAgent);
    expect(app.rootAgent.description).toBe("an agent written in typescript");
    expect(app.app).toBeUndefined();
    expect(app.source).toBe(resolve(fixturesDir, "module_ts/agent.ts"));
  });

  it("loads a JavaScript module", async () => {
    const app = await loader.loadApp("module_js");
    expect(app.rootAgent).toBeInstanceOf(LlmAgent);
    expect(app.rootAgent.description).toBe("an agent written in javascript");
  });

  it("loads a default App export and keeps the App (plugins) on the loaded app", async () => {
    const loaded = await loader.loadApp("app_export");
    expect(loaded.app).toBeInstanceOf(App);
    expect(loaded.app?.plugins.map((p) => p.name)).toEqual(["counting"]);
    expect(loaded.rootAgent).toBe(loaded.app?.rootAgent);
    expect(loaded.rootAgent.description).toBe("from an App");
  });

  it("loads a named `app` export from index.ts", async () => {
    const loaded = await loader.loadApp("named_app");
    expect(loaded.app).toBeInstanceOf(App);
    expect(loaded.rootAgent).toBeInstanceOf(SequentialAgent);
    expect(loaded.source).toBe(resolve(fixturesDir, "named_app/index.ts"));
  });

  it("returns the same object on every call without reload", async () => {
    const first = await loader.loadApp("module_ts");
    const [a, b] = await Promise.all([loader.loadApp("module_ts"), loader.loadApp("module_ts")]);
    expect(a).toBe(first);
    expect(b).toBe(first);
  });

  it("throws AppNotFoundError for unknown apps, ignored folders, folders without an agent and path tricks", async () => {
    for (const name of [
      "nope",
      "_shared",
      ".hidden",
      "not_an_app",
      "../agents/module_ts",
      "module_ts/..",
      "",
      "node_modules",
    ]) {
      await expect(loader.loadApp(name)).rejects.toBeInstanceOf(AppNotFoundError);
    }
    await expect(loader.loadApp("nope")).rejects.toMatchObject({
      code: "APP_NOT_FOUND",
      message: "App not found: nope",
    });
  });

  it("refuses calls after close", async () => {
    const closed = createDirectoryAgentLoader({ agentsDir: fixturesDir });
    await closed.close();
    await expect(closed.loadApp("module_ts")).rejects.toMatchObject({ code: "CONFIGURATION_ERROR" });
  });
});

describe("createDirectoryAgentLoader: options", () => {
  it("loads the compiled module from buildOutputDirs instead of the source", async () => {
    const t = await temp({
      "src/agents/app1/agent.ts": agentModule("app1", `"from source"`),
      "dist/agents/app1/agent.js": agentModule("app1", `"from dist"`).replace("const marker: string", "const marker"),
    });
    const loader = createDirectoryAgentLoader({
      agentsDir: `${t.dir}/src/agents`,
      sourceDir: `${t.dir}/src`,
      buildOutputDirs: [`${t.dir}/build`, `${t.dir}/dist`],
    });
    const app = await loader.loadApp("app1");
    expect(app.rootAgent.description).toBe("from dist");
    expect(app.source).toBe(`${t.dir}/dist/agents/app1/agent.js`);
    await loader.close();
    // Without build output dirs, the source loads.
    const plain = createDirectoryAgentLoader({ agentsDir: `${t.dir}/src/agents` });
    expect((await plain.loadApp("app1")).rootAgent.description).toBe("from source");
    await plain.close();
  });

  it("checks string model names against the modelRegistry at load time", async () => {
    const t = await temp({
      "good/agent.ts": agentModule("good", `"g"`).replace('"some-model"', '"known-1"'),
      "bad/agent.ts": agentModule("bad", `"b"`),
    });
    const registry = new ModelRegistry().register(/^known-/, () => ({}) as BaseLlm);
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, modelRegistry: registry });
    expect((await loader.loadApp("good")).rootAgent.name).toBe("good");
    const error = await loader.loadApp("bad").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AgentLoadError);
    expect((error as Error).message).toMatch(
      /bad\/agent\.ts: agent "bad" uses model "some-model", which no registered pattern matches \(known patterns: \/\^known-\/\)/,
    );
    await loader.close();
  });

  it("warns through the logger when an app folder holds both a module and a YAML config, and loads the module", async () => {
    const t = await temp({ "both/agent.ts": agentModule("both", `"module"`), "both/root_agent.yaml": "name: both\n" });
    const warnings: string[] = [];
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, logger: { warn: (m) => warnings.push(m) } });
    expect((await loader.loadApp("both")).rootAgent.description).toBe("module");
    expect(warnings.join("\n")).toMatch(/both\/root_agent\.yaml is ignored: app "both" loads .*both\/agent\.ts/);
    await loader.close();
  });

  it("imports through importModule: plain file URLs without reload, tagged URLs (one tag per load) with it", async () => {
    const t = await temp({ "a/agent.ts": agentModule("a", `"v1"`) });
    const urls: string[] = [];
    const importModule = (url: string) => {
      urls.push(url);
      return import(url);
    };
    const plain = createDirectoryAgentLoader({ agentsDir: t.dir, importModule });
    await plain.loadApp("a");
    await plain.close();
    expect(urls).toEqual([`file://${t.dir}/a/agent.ts`]);
    urls.length = 0;
    const warnings: string[] = [];
    const reloading = createDirectoryAgentLoader({
      agentsDir: t.dir,
      reload: true,
      importModule,
      logger: { warn: (m) => warnings.push(m) },
    });
    // Jest refuses module hooks: the loader says what that costs and still reloads the entry module.
    expect(warnings).toEqual([expect.stringContaining("module.registerHooks is unavailable")]);
    await reloading.loadApp("a");
    await t.write("a/agent.ts", agentModule("a", `"v2 (longer)"`));
    await reloading.loadApp("a");
    await reloading.close();
    expect(urls).toHaveLength(2);
    expect(urls[0]).toMatch(new RegExp(`^file://${t.dir}/a/agent\\.ts\\?agentkit-reload=l\\d+\\.\\d+$`));
    expect(new Set(urls).size).toBe(2);
  });
});
