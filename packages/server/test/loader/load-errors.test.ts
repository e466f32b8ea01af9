import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { basename } from "node:path";
import { ConfigurationError, ModelRegistry, type BaseLlm } from "@agentkit/core";
import { AgentLoadError, createDirectoryAgentLoader } from "../../src/loader/index.js";
import { relativizePaths } from "../../src/loader/agent-load-error.js";
import { agentModule, makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";

const TOOLS = `import { FunctionTool } from "@agentkit/core";
export const goodTool = new FunctionTool({ name: "good", description: "Good.", execute: () => ({}) });
export const notATool = 42;
export function notACallback() {}
export const notAFunction = "text";
`;

/** app folder → files; each app is broken in one way. */
const YAML_CASES: { app: string; files: Record<string, string>; file?: string; field?: string; message: RegExp }[] = [
  {
    app: "syntax",
    files: { "root_agent.yaml": "name: a\nmodel: [unclosed\n" },
    message: /YAML syntax error at line \d+, column \d+/,
  },
  { app: "empty", files: { "root_agent.yaml": "# nothing\n" }, message: /the file is empty/ },
  {
    app: "a_list",
    files: { "root_agent.yaml": "- name: a\n" },
    message: /expected a mapping \(an agent config\), got a list/,
  },
  {
    app: "unknown_key",
    files: { "root_agent.yaml": "name: a\nmodle: m\n" },
    field: "modle",
    message: /modle: unknown field/,
  },
  {
    app: "sub_model",
    files: {
      "root_agent.yaml":
        "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - name: one\n    model: m\n  - name: two\n    model: " +
        "42\n",
    },
    field: "sub_agents[1].model",
    message: /: sub_agents\[1\]\.model: expected string, received number$/,
  },
  {
    app: "bad_class",
    files: { "root_agent.yaml": "agent_class: RobotAgent\nname: a\n" },
    field: "agent_class",
    message:
      /agent_class: unknown agent class "RobotAgent"; expected one of LlmAgent, SequentialAgent, ParallelAgent, LoopAgent/,
  },
  { app: "no_name", files: { "root_agent.yaml": "model: m\n" }, field: "name", message: /name: required \(string\)/ },
  {
    app: "bad_name",
    files: { "root_agent.yaml": "name: bad-name\n" },
    field: "name",
    message: /name: must be an identifier/,
  },
  {
    app: "no_model",
    files: {
      "root_agent.yaml":
        "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - name: first\n    model: m\n    sub_agents:\n      - " +
        "name: inherits\n  - name: orphan\n",
    },
    field: "sub_agents[1].model",
    message:
      /sub_agents\[1\]\.model: required: an LlmAgent needs a model \(or model_code\), unless an LlmAgent above it has one$/,
  },
  {
    app: "loop_zero",
    files: { "root_agent.yaml": "agent_class: LoopAgent\nname: l\nmax_iterations: 0\n" },
    field: "max_iterations",
    message: /max_iterations: Too small/,
  },
  {
    app: "workflow_model",
    files: { "root_agent.yaml": "agent_class: ParallelAgent\nname: p\nmodel: m\n" },
    field: "model",
    message: /model: unknown field/,
  },
  {
    app: "contents",
    files: { "root_agent.yaml": "name: a\ninclude_contents: all\n" },
    field: "include_contents",
    message: /include_contents: expected one of "default"\|"none"/,
  },
  {
    app: "gen_config",
    files: { "root_agent.yaml": "name: a\ngenerate_content_config:\n  temperature: hot\n  system_instruction: x\n" },
    field: "generate_content_config.temperature",
    message:
      /generate_content_config\.temperature: expected number, received string; generate_content_config\.system_instruction: not allowed here; use the agent's instruction/,
  },
  {
    app: "builtin",
    files: { "root_agent.yaml": "name: a\ntools:\n  - google_search\n" },
    field: "tools[0]",
    message: /tools\[0\]: unknown built-in tool "google_search" \(built-in tools: exit_loop, AgentTool\)/,
  },
  {
    app: "no_export",
    files: {
      "root_agent.yaml": "name: a\ntools:\n  - name: ./tools.ts#goodTool\n  - name: ./tools.ts#missing\n",
      "tools.ts": TOOLS,
    },
    field: "tools[1].name",
    message:
      /tools\[1\]\.name: "\.\/tools\.ts#missing": the module has no export "missing" \(it exports: goodTool, notACallback, notAFunction, notATool\)/,
  },
  {
    app: "no_module",
    files: { "root_agent.yaml": "name: a\ntools:\n  - ./nowhere.ts#x\n" },
    field: "tools[0]",
    message: /tools\[0\]: "\.\/nowhere\.ts#x": no module file \.\/nowhere\.ts/,
  },
  {
    app: "not_tool",
    files: { "root_agent.yaml": "name: a\ntools:\n  - ./tools.ts#notATool\n", "tools.ts": TOOLS },
    field: "tools[0]",
    message: /tools\[0\]: "\.\/tools\.ts#notATool" is a number, expected a tool/,
  },
  {
    app: "not_callback",
    files: {
      "root_agent.yaml": "name: a\nbefore_model_callbacks:\n  - name: ./tools.ts#notAFunction\n",
      "tools.ts": TOOLS,
    },
    field: "before_model_callbacks[0].name",
    message:
      /before_model_callbacks\[0\]\.name: "\.\/tools\.ts#notAFunction" is a string, expected a callback function/,
  },
  {
    app: "bad_ref",
    files: { "root_agent.yaml": "name: a\nafter_agent_callbacks:\n  - not a reference\n" },
    field: "after_agent_callbacks[0]",
    message: /is not a code reference/,
  },
  {
    app: "missing_path",
    files: { "root_agent.yaml": "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - config_path: nope.yaml\n" },
    field: "sub_agents[0].config_path",
    message: /sub_agents\[0\]\.config_path: no such file: nope\.yaml/,
  },
  {
    app: "circular",
    files: {
      "root_agent.yaml": "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - config_path: b.yaml\n",
      "b.yaml": "agent_class: SequentialAgent\nname: b\nsub_agents:\n  - config_path: root_agent.yaml\n",
    },
    file: "b.yaml",
    field: "sub_agents[0].config_path",
    message:
      /b\.yaml: sub_agents\[0\]\.config_path: circular config_path: .*root_agent\.yaml -> .*b\.yaml -> .*root_agent\.yaml/,
  },
  {
    app: "in_sub_file",
    files: {
      "root_agent.yaml": "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - config_path: sub.yaml\n",
      "sub.yaml": "name: sub\nmodel: 7\n",
    },
    file: "sub.yaml",
    field: "model",
    message: /in_sub_file\/sub\.yaml: model: expected string, received number$/,
  },
  {
    app: "ref_extra",
    files: {
      "root_agent.yaml": "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - config_path: sub.yaml\n    foo: 1\n",
    },
    field: "sub_agents[0].foo",
    message: /sub_agents\[0\]\.foo: unknown field/,
  },
  {
    app: "model_twice",
    files: { "root_agent.yaml": "name: a\nmodel: m\nmodel_code: ./tools.ts#goodTool\n", "tools.ts": TOOLS },
    field: "model_code",
    message: /give either model or model_code/,
  },
  {
    app: "bad_schema",
    files: { "root_agent.yaml": "name: a\noutput_schema: ./tools.ts#notATool\n", "tools.ts": TOOLS },
    field: "output_schema",
    message:
      /output_schema: "\.\/tools\.ts#notATool" is a number, expected a zod schema or a JSON Schema with type "object"/,
  },
  {
    app: "twins",
    files: {
      "root_agent.yaml":
        "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - name: same\n    model: m\n  - name: same\n    " +
        "model: m\n",
    },
    message: /twins\/root_agent\.yaml: Agent "s" has two sub-agents named "same"/,
  },
  {
    app: "broken_code",
    files: { "root_agent.yaml": "name: a\ntools:\n  - ./helpers.ts#tool\n", "helpers.ts": "export const tool = ;\n" },
    field: "tools[0]",
    message: /tools\[0\]: "\.\/helpers\.ts#tool": cannot load the module: /,
  },
];

const MODULE_CASES: { app: string; files: Record<string, string>; file: string; message: RegExp }[] = [
  {
    app: "ts_syntax",
    files: { "agent.ts": "export const rootAgent = new ;\n" },
    file: "agent.ts",
    message: /cannot load the module: /,
  },
  {
    app: "ts_no_export",
    files: { "agent.ts": "export const helper = 1;\nexport function other() {}\n" },
    file: "agent.ts",
    message: /exports no rootAgent or App \(it exports: helper, other\)/,
  },
  {
    app: "ts_wrong_type",
    files: { "agent.ts": 'export const rootAgent = "an agent";\n' },
    file: "agent.ts",
    message: /the export "rootAgent" is a string, expected an agent/,
  },
  {
    app: "ts_throws",
    files: {
      "agent.ts":
        'import { LlmAgent } from "@agentkit/core";\nexport const rootAgent = new LlmAgent({ name: "not valid" });\n',
    },
    file: "agent.ts",
    message: /cannot load the module: ConfigurationError: .*not valid/,
  },
  {
    app: "ts_missing_sibling",
    files: { "agent.ts": 'export { rootAgent } from "./gone.js";\n' },
    file: "agent.ts",
    message: /cannot load the module: [\s\S]*gone\.js/,
  },
  {
    app: "ts_throws_paths",
    files: {
      "agent.ts":
        'import { readFileSync } from "node:fs";\nreadFileSync("/nonexistent-agentkit/secret.txt");\nexport const ' +
        "rootAgent = 1;\n",
    },
    file: "agent.ts",
    message: /cannot load the module: .*ENOENT: no such file or directory, open '…\/secret\.txt'/,
  },
  {
    app: "ts_throws_url",
    files: { "agent.ts": 'throw new Error("broken at " + import.meta.url);\n' },
    file: "agent.ts",
    message: /cannot load the module: broken at agentkit-loader-\w+\/ts_throws_url\/agent\.ts/,
  },
  {
    app: "bad-folder",
    files: { "agent.ts": agentModule("ok", `"x"`) },
    file: "agent.ts",
    message: /the folder name "bad-folder" is not a valid app name/,
  },
];

let t: TempAgentsDir;
beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const c of [...YAML_CASES, ...MODULE_CASES])
    for (const [path, content] of Object.entries(c.files)) files[`${c.app}/${path}`] = content;
  files["fine/agent.ts"] = agentModule("fine", `"still fine"`);
  files["unknown_model/root_agent.yaml"] =
    "agent_class: SequentialAgent\nname: s\nsub_agents:\n  - name: a\n    model: gpt-9\n";
  files["unknown_fallback/root_agent.yaml"] = "name: a\nmodel: fallback:some-model, gpt-9\n";
  t = await makeAgentsDir(files);
});
afterAll(() => t.cleanup());

async function loadError(app: string, options: { modelRegistry?: ModelRegistry } = {}): Promise<AgentLoadError> {
  const loader = createDirectoryAgentLoader({ agentsDir: t.dir, ...options });
  try {
    const error = await loader.loadApp(app).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AgentLoadError);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ code: "CONFIGURATION_ERROR" });
    // A broken app never stops the others.
    expect((await loader.loadApp("fine")).rootAgent.description).toBe("still fine");
    return error as AgentLoadError;
  } finally {
    await loader.close();
  }
}

describe("YAML config errors name the file and the field", () => {
  for (const c of YAML_CASES) {
    it(`${c.app}: ${c.message.source.slice(0, 60)}`, async () => {
      const error = await loadError(c.app);
      const file = c.file ?? "root_agent.yaml";
      expect(error.file).toBe(`${t.dir}/${c.app}/${file}`);
      expect(error.message.startsWith(`${basename(t.dir)}/${c.app}/${file}: `)).toBe(true);
      expect(error.field).toBe(c.field);
      expect(error.message).toMatch(c.message);
    });
  }

  it("unknown model names, with a model registry", async () => {
    const registry = new ModelRegistry()
      .register("some-model", () => ({}) as BaseLlm)
      .register(/^gemini-/, () => ({}) as BaseLlm);
    const error = await loadError("unknown_model", { modelRegistry: registry });
    expect(error.field).toBe("sub_agents[0].model");
    expect(error.message).toMatch(
      /unknown_model\/root_agent\.yaml: sub_agents\[0\]\.model: no model is registered for "gpt-9" \(known patterns: \/\^gemini-\/, \/\^some-model\$\/\)/,
    );
  });

  it("a failover name whose models are not all known (the registry's dependencies)", async () => {
    const registry = new ModelRegistry()
      .register("some-model", () => ({}) as BaseLlm)
      .register(/^fallback:/, () => ({}) as BaseLlm, {
        dependencies: (name) =>
          name
            .slice("fallback:".length)
            .split(",")
            .map((n) => n.trim()),
      });
    expect(registry.has("fallback:some-model")).toBe(true);
    const error = await loadError("unknown_fallback", { modelRegistry: registry });
    expect(error.field).toBe("model");
    expect(error.message).toContain('no model is registered for "fallback:some-model, gpt-9"');
  });
});

describe("module errors name the file", () => {
  for (const c of MODULE_CASES) {
    it(`${c.app}: ${c.message.source.slice(0, 60)}`, async () => {
      const error = await loadError(c.app);
      expect(error.file).toBe(`${t.dir}/${c.app}/${c.file}`);
      expect(error.message.startsWith(`${basename(t.dir)}/${c.app}/${c.file}: `)).toBe(true);
      expect(error.message).toMatch(c.message);
      // The message reaches HTTP clients: no absolute path of this machine in it.
      expect(error.message).not.toContain(t.dir);
      expect(error.message).not.toContain("file://");
    });
  }
});

describe("relativizePaths", () => {
  it("rewrites absolute paths and file URLs, and leaves relative paths, URLs and regexes alone", () => {
    const base = "/srv/app";
    expect(
      relativizePaths("Cannot find module '/srv/app/agents/a/gone.js' imported from /srv/app/agents/a/agent.ts", base),
    ).toBe("Cannot find module 'agents/a/gone.js' imported from agents/a/agent.ts");
    expect(relativizePaths("at file:///srv/app/agents/a/agent.ts:3:7", base)).toBe("at agents/a/agent.ts:3:7");
    expect(relativizePaths("in /home/me/.pnpm/node_modules/.pnpm/x@1/node_modules/x/index.js:1", base)).toBe(
      "in node_modules/x/index.js:1",
    );
    expect(relativizePaths("open '/etc/secrets/key.pem'", base)).toBe("open '…/key.pem'");
    const untouched = "see ./tools.ts#x, ../shared/a.ts, https://example.com/docs/x and /^gemini-/ in agents/a/b.yaml";
    expect(relativizePaths(untouched, base)).toBe(untouched);
    expect(relativizePaths("/srv/app/agents/a.ts", undefined)).toBe("…/a.ts");
  });
});
