import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { mkdir, rm, symlink, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { BaseCodeExecutor, type CodeExecutionInput, type CodeExecutorResult } from "@agentkit/core";
import {
  AgentLoadError,
  BUILDER_MARKER,
  createDirectoryAgentLoader,
  type BuiltInCodeExecutorEntry,
} from "../../src/index.js";
import type { AgentLoader } from "../../src/agent-loader.js";
import { makeAgentsDir, type TempAgentsDir } from "./agents-dir.js";

// What a YAML config may reference (loader/code-scope.ts): every refused reference names a
// module that, if it were imported, would write a marker file; the tests check the error
// (file and field) and that the marker never appears.

let agents: TempAgentsDir;
let outsideDir: string;
let loader: AgentLoader;
const markers: string[] = [];

/** A module that proves it ran: importing it writes `marker`. */
function payload(marker: string): string {
  markers.push(marker);
  return (
    `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "ran");\nexport const ` +
    `run = 1;\n`
  );
}

class RecordingExecutor extends BaseCodeExecutor {
  override async executeCode(_context: unknown, input: CodeExecutionInput): Promise<CodeExecutorResult> {
    return { stdout: input.code, stderr: "", outputFiles: [] };
  }
}
/** Built-in executors "made" (a process-running one would start here): the test records each. */
const made: string[] = [];
const builtInCodeExecutors: Record<string, BuiltInCodeExecutorEntry> = {
  UnsafeLocalCodeExecutor: () => {
    made.push("UnsafeLocalCodeExecutor");
    return new RecordingExecutor();
  },
  BuiltInCodeExecutor: () => {
    made.push("BuiltInCodeExecutor");
    return new RecordingExecutor();
  },
};

const llm = (extra: string) => `name: a\nmodel: some-model\n${extra}`;
const marked = (text: string) => `${BUILDER_MARKER}\n${text}`;

beforeAll(async () => {
  agents = await makeAgentsDir();
  outsideDir = join(dirname(agents.dir), `${basename(agents.dir)}-outside`);
  await mkdir(outsideDir, { recursive: true });
  const m = (name: string) => join(agents.dir, `marker-${name}`);
  await writeFile(join(outsideDir, "outside.ts"), payload(m("outside")));
  const files: Record<string, string> = {
    // Data a client could have written: an artifact (extensionless) and anything under .agentkit.
    ".agentkit/artifacts/a/u/s/x.txt/0/data": payload(m("artifact")),
    ".agentkit/evil.ts": payload(m("agentkit-ts")),
    ".agentkit/evil.yaml": llm("tools:\n  - ../a/payload.ts#run\n"),
    "other_app/root_agent.yaml": llm(""),
    "other_app/tools.ts": payload(m("other-app")),
    "_shared/ok.ts": `import { exitLoopTool } from "@agentkit/core";\nexport const tool = exitLoopTool;\n`,
    "_shared/evil.ts": payload(m("shared")),
    // Apps, one refused reference each.
    "dotdot_app/root_agent.yaml": llm("tools:\n  - ../other_app/tools.ts#run\n"),
    "dotdot_out/root_agent.yaml": llm(`tools:\n  - ../../${basename(outsideDir)}/outside.ts#run\n`),
    "absolute/root_agent.yaml": llm(`tools:\n  - ${join(outsideDir, "outside.ts")}#run\n`),
    "agentkit_data/root_agent.yaml": llm("tools:\n  - ../.agentkit/artifacts/a/u/s/x.txt/0/data#run\n"),
    "agentkit_ts/root_agent.yaml": llm("before_model_callbacks:\n  - ../.agentkit/evil.ts#run\n"),
    "hidden_in_app/root_agent.yaml": llm("tools:\n  - ./.cache/evil.ts#run\n"),
    "hidden_in_app/.cache/evil.ts": payload(m("hidden")),
    "extensionless/root_agent.yaml": llm("tools:\n  - ./data#run\n"),
    "extensionless/data": payload(m("extensionless")),
    "symlink_data/root_agent.yaml": llm("tools:\n  - ./linked.ts#run\n"),
    "symlink_out/root_agent.yaml": "name: a\nmodel_code: ./linked.ts#run\n",
    "node_builtin/root_agent.yaml": llm("before_model_callbacks:\n  - node:child_process#execSync\n"),
    "bare_builtin/root_agent.yaml": llm("before_model_callbacks:\n  - child_process#execSync\n"),
    "file_url/root_agent.yaml": llm(`tools:\n  - file://${join(outsideDir, "outside.ts")}#run\n`),
    "package_escape/root_agent.yaml": llm("tools:\n  - zod/../../.agentkit/evil.ts#run\n"),
    "dotted_other/root_agent.yaml": llm("tools:\n  - other_app.tools.run\n"),
    "dotted_modules/root_agent.yaml": llm("tools:\n  - node_modules.zod.index.z\n"),
    "config_hidden/root_agent.yaml": llm("sub_agents:\n  - config_path: ../.agentkit/evil.yaml\n"),
    "config_absolute/root_agent.yaml": llm(
      `sub_agents:\n  - config_path: ${join(agents.dir, ".agentkit", "evil.yaml")}\n`,
    ),
    "shared_ok/root_agent.yaml": llm("tools:\n  - ../_shared/ok.ts#tool\n  - shared_ok.local.tool\n"),
    "shared_ok/local.ts": `export { tool } from "../_shared/ok.ts";\n`,
    // The builder's rules, for files carrying its marker.
    "dev_executor/root_agent.yaml": llm("code_executor: UnsafeLocalCodeExecutor\n"),
    "builder_executor/root_agent.yaml": marked(llm("code_executor: UnsafeLocalCodeExecutor\n")),
    "builder_executor_ref/root_agent.yaml": marked(llm("code_executor: ./executors.ts#local\n")),
    "builder_executor_ref/executors.ts": payload(m("executor-ref")),
    "builder_safe_executor/root_agent.yaml": marked(llm("code_executor: BuiltInCodeExecutor\n")),
    "builder_via_config/root_agent.yaml": marked(
      "agent_class: SequentialAgent\nname: a\nsub_agents:\n  - config_path: developer.yaml\n",
    ),
    "builder_via_config/developer.yaml": "name: dev\nmodel: m\ncode_executor: UnsafeLocalCodeExecutor\n",
    "builder_via_code/root_agent.yaml": marked(
      "agent_class: SequentialAgent\nname: a\nsub_agents:\n  - code: ./agents.ts#coder\n",
    ),
    "builder_via_code/agents.ts": `import { BaseCodeExecutor, LlmAgent } from "@agentkit/core";
class Local extends BaseCodeExecutor { async executeCode() { return { stdout: "", stderr: "", outputFiles: [] }; } }
export const coder = new LlmAgent({ name: "coder", model: "m", codeExecutor: new Local() });
`,
    "builder_args/root_agent.yaml": marked(llm("tools:\n  - name: exit_loop\n    args:\n      command: python\n")),
    "builder_shared/root_agent.yaml": marked(llm("tools:\n  - ../_shared/evil.ts#run\n")),
    "builder_package/root_agent.yaml": marked(llm("tools:\n  - zod#z\n")),
    "builder_tool/root_agent.yaml": marked(llm("tools:\n  - ComputerUseToolset\n")),
  };
  for (const [rel, text] of Object.entries(files)) await agents.write(rel, text);
  await symlink(
    join(agents.dir, ".agentkit/artifacts/a/u/s/x.txt/0/data"),
    join(agents.dir, "symlink_data", "linked.ts"),
  );
  await symlink(join(outsideDir, "outside.ts"), join(agents.dir, "symlink_out", "linked.ts"));
  loader = createDirectoryAgentLoader({
    agentsDir: agents.dir,
    builtInCodeExecutors,
    builtInTools: { ComputerUseToolset: () => Promise.reject(new Error("would start a browser")) },
    builderPolicy: { codeExecutors: ["BuiltInCodeExecutor"] },
  });
});
afterAll(async () => {
  await loader.close();
  await agents.cleanup();
  await rm(outsideDir, { recursive: true, force: true });
});

/** Loads an app expecting a refusal: an AgentLoadError naming the file and field, and nothing imported. */
async function refused(app: string, field: string, message: RegExp, file = "root_agent.yaml"): Promise<void> {
  const error = await loader.loadApp(app).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentLoadError);
  const loadError = error as AgentLoadError;
  expect(loadError.code).toBe("CONFIGURATION_ERROR");
  expect(loadError.file).toBe(join(agents.dir, app, file));
  expect(loadError.field).toBe(field);
  expect(loadError.message).toMatch(message);
  expect(loadError.message.startsWith(`${basename(agents.dir)}/${app}/${file}: ${field}: `)).toBe(true);
  for (const marker of markers) expect(existsSync(marker)).toBe(false);
}

describe("code references stay in the app folder", () => {
  it("refuses .. out of the app folder: into another app, or out of the agents directory", async () => {
    await refused("dotdot_app", "tools[0]", /"\.\.\/other_app\/tools\.ts#run" leaves the app folder dotdot_app\//);
    await refused("dotdot_out", "tools[0]", /leaves the agents directory/);
  });

  it("refuses absolute paths and file: URLs", async () => {
    await refused("absolute", "tools[0]", /is an absolute path: write it relative to the YAML file/);
    await refused("file_url", "tools[0]", /is not a package name/);
  });

  it("refuses the server's data: .agentkit (an artifact's bytes or a .ts there) and any hidden folder", async () => {
    await refused("agentkit_data", "tools[0]", /is inside the hidden folder "\.agentkit"/);
    await refused("agentkit_ts", "before_model_callbacks[0]", /is inside the hidden folder "\.agentkit"/);
    await refused("hidden_in_app", "tools[0]", /is inside the hidden folder "\.cache"/);
  });

  it("refuses files that are not modules (an extensionless file is data)", async () => {
    await refused("extensionless", "tools[0]", /"\.\/data#run" is not a module file \(\.ts, \.mts, \.cts, \.js/);
  });

  it("resolves symbolic links before checking: a link to data or out of the folder is refused", async () => {
    await refused(
      "symlink_data",
      "tools[0]",
      /"\.\/linked\.ts#run" resolves through a symbolic link to \.agentkit\/artifacts\/a\/u\/s\/x\.txt\/0\/data, which is outside symlink_data\//,
    );
    await refused(
      "symlink_out",
      "model_code",
      /resolves through a symbolic link to a file outside the agents directory, which is outside symlink_out\//,
    );
  });

  it("refuses Node built-ins (node:child_process, child_process) and specifiers that are not package names", async () => {
    await refused("node_builtin", "before_model_callbacks[0]", /names a Node built-in module/);
    await refused("bare_builtin", "before_model_callbacks[0]", /names a Node built-in module/);
    await refused("package_escape", "tools[0]", /is not a package name/);
  });

  it("keeps ADK's dotted form inside the app folder (not another app, not node_modules)", async () => {
    await refused("dotted_other", "tools[0]", /"other_app\.tools\.run" leaves the app folder dotted_other\//);
    await refused("dotted_modules", "tools[0]", /is inside node_modules/);
  });

  it("keeps config_path in the app folder too", async () => {
    await refused(
      "config_hidden",
      "sub_agents[0].config_path",
      /"\.\.\/\.agentkit\/evil\.yaml" is inside the hidden folder/,
    );
    await refused("config_absolute", "sub_agents[0].config_path", /is an absolute path/);
  });

  it("still loads files of the app and of _-prefixed shared folders", async () => {
    const { rootAgent } = await loader.loadApp("shared_ok");
    expect((rootAgent as unknown as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual([
      "exit_loop",
      "exit_loop",
    ]);
  });
});

describe("configs written through the agent builder (marker line)", () => {
  it("a developer's file may use a process-running executor; a builder-written one may not", async () => {
    made.length = 0;
    await loader.loadApp("dev_executor");
    expect(made).toEqual(["UnsafeLocalCodeExecutor"]);
    made.length = 0;
    await refused(
      "builder_executor",
      "code_executor",
      /the code executor "UnsafeLocalCodeExecutor" is not allowed in configs written through the agent builder: it could run processes on the server \(allowed: BuiltInCodeExecutor;/,
    );
    await refused(
      "builder_executor_ref",
      "code_executor",
      /a code reference \("\.\/executors\.ts#local"\) as code executor is not allowed/,
    );
    expect(made).toEqual([]);
  });

  it("allows the executors of the builder policy", async () => {
    made.length = 0;
    await loader.loadApp("builder_safe_executor");
    expect(made).toEqual(["BuiltInCodeExecutor"]);
  });

  it("passes its rules down config_path: a developer file it reaches may not bring an executor either", async () => {
    made.length = 0;
    await refused("builder_via_config", "code_executor", /"UnsafeLocalCodeExecutor" is not allowed/, "developer.yaml");
    expect(made).toEqual([]);
  });

  it("refuses an agent from code that has a code executor", async () => {
    await refused("builder_via_code", "sub_agents[0].code", /gives agent "coder", which has a code executor/);
  });

  it("refuses args, code outside its own app folder, packages and built-in tools outside the policy", async () => {
    await refused("builder_args", "tools[0].args", /may not hold args/);
    await refused(
      "builder_shared",
      "tools[0]",
      /leaves the app folder builder_shared\/ \(configs written through the agent builder/,
    );
    await refused("builder_package", "tools[0]", /"zod#z" names a package/);
    await refused(
      "builder_tool",
      "tools[0]",
      /the built-in tool "ComputerUseToolset" is not allowed in configs written through the agent builder \(allowed: exit_loop\)/,
    );
  });
});
