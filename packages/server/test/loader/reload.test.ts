import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { execFile } from "node:child_process";
import { readdir, readFile, readlink } from "node:fs/promises";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { AppNotFoundError } from "../../src/errors/server-errors.js";
import { AgentLoadError, createDirectoryAgentLoader } from "../../src/loader/index.js";
import { agentModule, makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";
import { buildPackages, type BuiltPackages } from "./built-packages.js";

const temps: TempAgentsDir[] = [];
afterAll(async () => {
  await Promise.all(temps.map((t) => t.cleanup()));
});
async function temp(core: string | undefined, files: Record<string, string>): Promise<TempAgentsDir> {
  const t = await makeAgentsDir(files, core);
  temps.push(t);
  return t;
}

const yamlAgent = (instruction: string, extra = "") => `name: y\nmodel: m\ninstruction: ${instruction}\n${extra}`;

// In-process: YAML files are read by the loader itself, so their reload is observable in Jest.
describe("hot reload in process (YAML apps)", () => {
  it("returns the same object while nothing changed and a new one after a change", async () => {
    const t = await temp(undefined, {
      "y/root_agent.yaml": yamlAgent("one"),
      "other/agent.ts": agentModule("other", `"o"`),
    });
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    const first = await loader.loadApp("y");
    expect(first.rootAgent).toMatchObject({ instruction: "one" });
    expect(await loader.loadApp("y")).toBe(first);
    await t.write("y/root_agent.yaml", yamlAgent("two"));
    await loader.settled!();
    const second = await loader.loadApp("y");
    expect(second).not.toBe(first);
    expect(second.rootAgent).toMatchObject({ instruction: "two" });
    expect(await loader.loadApp("y")).toBe(second);
    // Another app is untouched by y's reload.
    const other = await loader.loadApp("other");
    await t.write("y/root_agent.yaml", yamlAgent("three"));
    await loader.settled!();
    await loader.loadApp("y");
    expect(await loader.loadApp("other")).toBe(other);
    await loader.close();
  });

  it("reloads when a file is added to or removed from the app folder, or a config_path file outside it changes", async () => {
    const t = await temp(undefined, {
      "y/root_agent.yaml":
        "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - config_path: ../_common/step.yaml\n",
      "_common/step.yaml": "name: step\nmodel: m\ndescription: first\n",
    });
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    const a = await loader.loadApp("y");
    expect(a.rootAgent.subAgents[0]?.description).toBe("first");
    await t.write("_common/step.yaml", "name: step\nmodel: m\ndescription: second\n");
    await loader.settled!();
    const b = await loader.loadApp("y");
    expect(b.rootAgent.subAgents[0]?.description).toBe("second");
    await t.write("y/notes.json", "{}");
    await loader.settled!();
    const c = await loader.loadApp("y");
    expect(c).not.toBe(b);
    await t.remove("y/notes.json");
    await loader.settled!();
    const d = await loader.loadApp("y");
    expect(d).not.toBe(c);
    expect(await loader.loadApp("y")).toBe(d);
    await loader.close();
  });

  it("reports a broken file for its app only, keeps reporting it while unchanged, and loads again once fixed", async () => {
    const t = await temp(undefined, {
      "y/root_agent.yaml": yamlAgent("fine"),
      "ok/agent.ts": agentModule("ok", `"ok"`),
    });
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    await loader.loadApp("y");
    await t.write("y/root_agent.yaml", "name: y\nmodel: 3\n");
    await loader.settled!();
    const broken = await loader.loadApp("y").catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(AgentLoadError);
    expect((broken as Error).message).toMatch(/y\/root_agent\.yaml: model: expected string, received number/);
    expect(await loader.loadApp("y").catch((e: unknown) => e)).toBe(broken);
    expect((await loader.loadApp("ok")).rootAgent.name).toBe("ok");
    await t.write("y/root_agent.yaml", yamlAgent("fixed"));
    await loader.settled!();
    expect((await loader.loadApp("y")).rootAgent).toMatchObject({ instruction: "fixed" });
    await loader.close();
  });

  it("lists new app folders, forgets removed ones and serves an entry file that replaced another", async () => {
    const t = await temp(undefined, { "y/root_agent.yaml": yamlAgent("one") });
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    expect(await loader.listApps()).toEqual(["y"]);
    await t.write("later/root_agent.yaml", "name: later\nmodel: m\n");
    await loader.settled!();
    expect(await loader.listApps()).toEqual(["later", "y"]);
    expect((await loader.loadApp("later")).rootAgent.name).toBe("later");
    await t.remove("later/root_agent.yaml");
    await loader.settled!();
    expect(await loader.listApps()).toEqual(["y"]);
    await expect(loader.loadApp("later")).rejects.toBeInstanceOf(AppNotFoundError);
    await t.write("later/agent.ts", agentModule("later_ts", `"now a module"`));
    await loader.settled!();
    expect((await loader.loadApp("later")).rootAgent.name).toBe("later_ts");
    await loader.close();
  });

  it("shares one load between concurrent calls", async () => {
    const t = await temp(undefined, { "y/root_agent.yaml": yamlAgent("one") });
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    const [a, b, c] = await Promise.all([loader.loadApp("y"), loader.loadApp("y"), loader.loadApp("y")]);
    expect(b).toBe(a);
    expect(c).toBe(a);
    await loader.close();
  });
});

// Out of process: Jest caches file contents for the whole test file, so TypeScript modules are
// reloaded in the real runtimes the server runs under: tsx on the sources (the dev server), Node
// 24 on the sources (type stripping for agents; our own sources need --experimental-transform-types),
// and plain `node` with no flags on compiled packages (an installed server loading users' .ts agents).
const execFileAsync = promisify(execFile);
const driver = resolve(import.meta.dirname, "fixtures/reload-driver.ts");
const tsxLoader = resolve(import.meta.dirname, "../../../../node_modules/tsx/dist/esm/index.mjs");

interface Runtime {
  args: string[];
  env: Record<string, string>;
  /** The @agentkit/core package agents dirs link to (undefined: the workspace's). */
  coreDir?: string;
}
const built: { packages?: BuiltPackages } = {};
const builtRuntime: Runtime = { args: ["--disable-warning=ExperimentalWarning"], env: {} };
const RUNTIMES: [string, Runtime][] = [
  ["tsx", { args: ["--conditions=@agentkit/source", "--import", tsxLoader], env: {} }],
  [
    "Node type stripping (sources)",
    {
      args: [
        "--conditions=@agentkit/source",
        "--experimental-transform-types",
        "--disable-warning=ExperimentalWarning",
      ],
      env: {},
    },
  ],
  ["plain node, compiled packages", builtRuntime],
];
beforeAll(async () => {
  built.packages = await buildPackages();
  builtRuntime.coreDir = built.packages.coreDir;
  builtRuntime.env = { AGENTKIT_LOADER_URL: built.packages.loaderUrl, AGENTKIT_CORE_URL: built.packages.coreUrl };
});
afterAll(() => built.packages?.cleanup());

type Step =
  | { op: "write"; path: string; content: string }
  | { op: "remove"; path: string }
  | { op: "load"; app: string }
  | { op: "list" };
type Result = {
  ok: boolean;
  name?: string;
  description?: string;
  tools?: string[];
  same?: boolean;
  message?: string;
  apps?: string[];
  code?: string;
};

async function drive(
  runtime: Runtime,
  dir: string,
  steps: Step[],
  extraEnv: Record<string, string> = {},
): Promise<Result[]> {
  const env = { ...process.env, NODE_OPTIONS: "", ...runtime.env, ...extraEnv };
  const { stdout } = await execFileAsync(process.execPath, [...runtime.args, driver, dir, JSON.stringify(steps)], {
    timeout: 30_000,
    env,
  });
  return JSON.parse(stdout) as Result[];
}

const label = (text: string) => `export const label: string = ${JSON.stringify(text)};\n`;
const toolModule = (name: string) =>
  `import { FunctionTool } from "@agentkit/core";\nexport const tool = new FunctionTool({ name: "${name}", ` +
  `description: "d", execute: () => ({}) });\n`;

describe.each(RUNTIMES)("hot reload of TypeScript modules under %s", (_name, runtime) => {
  it("re-imports a changed agent module and a changed sibling module; a broken file fails alone and loads again once fixed", async () => {
    const t = await temp(runtime.coreDir, {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source of the agent module, a template literal
      "a/agent.ts": agentModule("a", "`${label}-v1`", 'import { label } from "./label.js";'),
      "a/label.ts": label("L1"),
      "b/agent.ts": agentModule("b", `"b1"`),
    });
    const results = await drive(runtime, t.dir, [
      { op: "load", app: "a" },
      { op: "load", app: "a" },
      {
        op: "write",
        path: "a/agent.ts",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source of the agent module, a template literal
        content: agentModule("a", "`${label}-v2`", 'import { label } from "./label.js";'),
      },
      { op: "load", app: "a" },
      { op: "write", path: "a/label.ts", content: label("L2") },
      { op: "load", app: "a" },
      { op: "load", app: "b" },
      { op: "write", path: "a/agent.ts", content: "export const rootAgent = new ;\n" },
      { op: "load", app: "a" },
      { op: "load", app: "b" },
      {
        op: "write",
        path: "a/agent.ts",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: source of the agent module, a template literal
        content: agentModule("a", "`${label}-v3`", 'import { label } from "./label.js";'),
      },
      { op: "load", app: "a" },
    ]);
    const loads = results.filter((r) => "name" in r || !r.ok);
    expect(loads.map((r) => (r.ok ? r.description : "error"))).toEqual([
      "L1-v1",
      "L1-v1",
      "L1-v2",
      "L2-v2",
      "b1",
      "error",
      "b1",
      "L2-v3",
    ]);
    expect(loads.map((r) => r.same)).toEqual([false, true, false, false, false, undefined, true, false]);
    const error = loads[5];
    expect(error?.code).toBe("CONFIGURATION_ERROR");
    // Node: "SyntaxError: Expression expected (at line 1)"; tsx: "TransformError: ... agent.ts:1:29: ERROR: ...".
    expect(error?.message).toMatch(
      new RegExp(
        `^${t.dir.split("/").pop()}/a/agent\\.ts: cannot load the module: (SyntaxError|TransformError): ` +
          `[\\s\\S]*(line 1|agent\\.ts:1:)`,
      ),
    );
  });

  it("reloads a YAML app when a code-referenced module or a shared module outside the app folder changes, and lists new apps", async () => {
    const t = await temp(runtime.coreDir, {
      "y/root_agent.yaml": "name: y\nmodel: m\ntools:\n  - ./tools.ts#tool\n",
      "y/tools.ts": toolModule("first_tool"),
      "m/agent.ts": agentModule("m", "label", 'import { label } from "../_lib/label.ts";'),
      "_lib/label.ts": label("shared one"),
    });
    const results = await drive(runtime, t.dir, [
      { op: "load", app: "y" },
      { op: "write", path: "y/tools.ts", content: toolModule("second_tool") },
      { op: "load", app: "y" },
      { op: "load", app: "m" },
      { op: "write", path: "_lib/label.ts", content: label("shared two") },
      { op: "load", app: "m" },
      { op: "load", app: "m" },
      { op: "write", path: "z/agent.ts", content: agentModule("z", `"z"`) },
      { op: "list" },
      { op: "load", app: "z" },
    ]);
    expect(results[0]).toMatchObject({ ok: true, tools: ["first_tool"] });
    expect(results[2]).toMatchObject({ ok: true, tools: ["second_tool"], same: false });
    expect(results[3]).toMatchObject({ ok: true, description: "shared one" });
    expect(results[5]).toMatchObject({ ok: true, description: "shared two", same: false });
    expect(results[6]).toMatchObject({ ok: true, same: true });
    expect(results[8]).toMatchObject({ ok: true, apps: ["m", "y", "z"] });
    expect(results[9]).toMatchObject({ ok: true, name: "z" });
  });
});

/** inotify watches this process holds (Linux: one line per watch in each inotify descriptor's fdinfo). */
async function inotifyWatches(): Promise<number> {
  let count = 0;
  for (const fd of await readdir("/proc/self/fd")) {
    const target = await readlink(`/proc/self/fd/${fd}`).catch(() => "");
    if (target !== "anon_inode:inotify") continue;
    const info = await readFile(`/proc/self/fdinfo/${fd}`, "utf8").catch(() => "");
    count += info.split("\n").filter((line) => line.startsWith("inotify wd:")).length;
  }
  return count;
}

describe("what the reload watcher watches", () => {
  it("leaves .agentkit/, other dot-folders and node_modules alone, and still reloads the apps", async () => {
    const files: Record<string, string> = { "y/root_agent.yaml": yamlAgent("one") };
    // What a dev server keeps under .agentkit/ (eval results, artifacts) and a package's files.
    for (let i = 0; i < 60; i++) {
      files[`.agentkit/evals/y/result-${i}.json`] = "{}";
      files[`node_modules/some-package/lib/file-${i}.js`] = "";
      files[`.git/objects/${i}`] = "";
    }
    const t = await temp(undefined, files);
    const before = process.platform === "linux" ? await inotifyWatches() : 0;
    const loader = createDirectoryAgentLoader({ agentsDir: t.dir, reload: true });
    try {
      const first = await loader.loadApp("y");
      if (process.platform === "linux") {
        // The folder, package.json, the app's folder and its file; not the 180 files above.
        const added = (await inotifyWatches()) - before;
        expect(added).toBeGreaterThanOrEqual(3);
        expect(added).toBeLessThan(10);
      }
      // Writes where the dev server keeps its data reload nothing.
      await t.write(".agentkit/sessions.db-wal", "x".repeat(100));
      await t.write("node_modules/some-package/lib/file-0.js", "changed");
      await loader.settled!();
      expect(await loader.loadApp("y")).toBe(first);
      // An app's own file still does, and waiting for it leaves no marker file behind.
      await t.write("y/root_agent.yaml", yamlAgent("two"));
      await loader.settled!();
      expect((await loader.loadApp("y")).rootAgent).toMatchObject({ instruction: "two" });
      expect((await readdir(t.dir)).filter((name) => name.includes("barrier"))).toEqual([]);
    } finally {
      await loader.close?.();
    }
  });
});

describe("plain node on compiled packages, without reload", () => {
  it("loads a .ts agent importing its .ts sibling as ./x.js, and keeps serving the first load", async () => {
    const t = await temp(builtRuntime.coreDir, {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: source of the agent module, a template literal
      "a/agent.ts": agentModule("a", "`${label}-v1`", 'import { label } from "./label.js";'),
      "a/label.ts": label("L1"),
    });
    const results = await drive(
      builtRuntime,
      t.dir,
      [
        { op: "load", app: "a" },
        { op: "write", path: "a/label.ts", content: label("L2") },
        { op: "load", app: "a" },
      ],
      { AGENTKIT_RELOAD: "0" },
    );
    expect(results[0]).toMatchObject({ ok: true, description: "L1-v1" });
    expect(results[2]).toMatchObject({ ok: true, description: "L1-v1", same: true });
  });
});
