import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { join } from "node:path";
import {
  BaseCodeExecutor,
  ConfigurationError,
  InMemoryRunner,
  LlmAgent,
  ModelRegistry,
  createUserContent,
  type CodeExecutionInput,
  type CodeExecutorResult,
  type Event,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { AgentLoadError, createDirectoryAgentLoader, type BuiltInCodeExecutorEntry } from "../src/index.js";
import { makeAgentsDir, type TempAgentsDir } from "./loader/agents-dir.js";

// An executor module in the agents dir: it "runs" code by echoing it with its label.
const EXECUTORS = `import { BaseCodeExecutor } from "@agentkit/core";
export class EchoExecutor extends BaseCodeExecutor {
  label: string;
  closed = false;
  constructor(options: { label?: string; error_retry_attempts?: number } = {}) {
    super({ errorRetryAttempts: options.error_retry_attempts });
    this.label = options.label ?? "plain";
  }
  async executeCode(_context: unknown, input: { code: string }) {
    return { stdout: this.label + " ran " + input.code, stderr: "", outputFiles: [] };
  }
  override async close() { this.closed = true; }
}
export const shared = new EchoExecutor({ label: "shared" });
export function makeExecutor(options: { label: string }) { return new EchoExecutor({ label: "factory " + options.label }); }
export function makeNothing() { return { executeCode: "no" }; }
export const notAnExecutor = 42;
`;

/** An executor of the test itself, for the injected built-in map. */
class TaggedExecutor extends BaseCodeExecutor {
  constructor(readonly tag: string) {
    super();
  }
  override async executeCode(_context: unknown, input: CodeExecutionInput): Promise<CodeExecutorResult> {
    return { stdout: `${this.tag}:${input.code}`, stderr: "", outputFiles: [] };
  }
}

const seen: { args: Record<string, unknown> | undefined; baseDir: string }[] = [];
const builtInCodeExecutors: Record<string, BuiltInCodeExecutorEntry> = {
  FixedExecutor: new TaggedExecutor("fixed"),
  MadeExecutor: async (args, { baseDir }) => {
    seen.push({ args, baseDir });
    if (args?.timeout_seconds !== undefined && typeof args.timeout_seconds !== "number") {
      throw new ConfigurationError("MadeExecutor args: timeout_seconds: expected a number.");
    }
    return new TaggedExecutor(String(args?.tag ?? "made"));
  },
  BrokenExecutor: () => "not an executor" as unknown as BaseCodeExecutor,
};

const yaml = (codeExecutor: string) => `name: coder\nmodel: test-model\ncode_executor: ${codeExecutor}\n`;

const APPS: Record<string, string> = {
  instance: yaml("./executors.ts#shared"),
  factory_list: yaml("\n  name: ./executors.ts#makeExecutor\n  args:\n    - name: label\n      value: from list"),
  class_map: yaml("\n  name: ./executors.ts#EchoExecutor\n  args:\n    label: from map\n    error_retry_attempts: 5"),
  class_bare: yaml("./executors.ts#EchoExecutor"),
  builtin_instance: yaml("FixedExecutor"),
  builtin_map: yaml("\n  name: MadeExecutor\n  args:\n    tag: mapped\n    timeout_seconds: 3"),
  builtin_list: yaml("\n  name: MadeExecutor\n  args:\n    - name: tag\n      value: listed"),
  // Errors:
  not_executor: yaml("./executors.ts#notAnExecutor"),
  factory_gives_nothing: yaml("\n  name: ./executors.ts#makeNothing"),
  no_export: yaml("./executors.ts#missing"),
  unknown_name: yaml("Nope"),
  builtin_bad_args: yaml("\n  name: MadeExecutor\n  args:\n    timeout_seconds: soon"),
  builtin_positional: yaml("\n  name: MadeExecutor\n  args:\n    - value: 1"),
  builtin_instance_args: yaml("\n  name: FixedExecutor\n  args:\n    tag: x"),
  builtin_gives_nothing: yaml("BrokenExecutor"),
  wrong_type: yaml("42"),
  extra_key: yaml("\n  name: FixedExecutor\n  other: 1"),
  on_workflow: "agent_class: SequentialAgent\nname: s\ncode_executor: FixedExecutor\n",
};

let t: TempAgentsDir;
beforeAll(async () => {
  const files: Record<string, string> = {};
  for (const [app, content] of Object.entries(APPS)) {
    files[`${app}/root_agent.yaml`] = content;
    files[`${app}/executors.ts`] = EXECUTORS;
  }
  t = await makeAgentsDir(files);
});
afterAll(() => t.cleanup());

function loader(withBuiltIns = true) {
  return createDirectoryAgentLoader({ agentsDir: t.dir, ...(withBuiltIns ? { builtInCodeExecutors } : {}) });
}

async function loadExecutor(app: string): Promise<BaseCodeExecutor & { label?: string; tag?: string }> {
  const l = loader();
  try {
    const { rootAgent } = await l.loadApp(app);
    expect(rootAgent).toBeInstanceOf(LlmAgent);
    const executor = (rootAgent as LlmAgent).codeExecutor;
    expect(executor).toBeDefined();
    return executor as BaseCodeExecutor & { label?: string; tag?: string };
  } finally {
    await l.close();
  }
}

async function loadError(app: string, withBuiltIns = true): Promise<AgentLoadError> {
  const l = loader(withBuiltIns);
  try {
    await l.loadApp(app);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentLoadError);
    expect(error).toBeInstanceOf(ConfigurationError);
    const e = error as AgentLoadError;
    expect(e.file).toBe(join(t.dir, app, "root_agent.yaml"));
    expect(e.message.startsWith(`${t.dir.split("/").at(-1)}/${app}/root_agent.yaml: `)).toBe(true);
    return e;
  } finally {
    await l.close();
  }
  throw new Error(`app ${app} loaded without an error`);
}

describe("code_executor: code references", () => {
  it("an executor instance, and the agent runs the model's code with it", async () => {
    const l = loader();
    const { rootAgent } = await l.loadApp("instance");
    const executor = (rootAgent as LlmAgent).codeExecutor as BaseCodeExecutor & { label: string; closed: boolean };
    expect(executor.label).toBe("shared");
    const model = new ScriptedModel({
      steps: [ScriptedModel.text("```tool_code\nprint(6 * 7)\n```"), ScriptedModel.text("It is 42.")],
    });
    const runner = new InMemoryRunner({
      agent: rootAgent,
      appName: "instance",
      modelRegistry: new ModelRegistry().register("test-model", () => model),
    });
    const session = await runner.sessionService.createSession({ appName: "instance", userId: "u" });
    const events: Event[] = [];
    for await (const e of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: createUserContent("6 * 7?"),
    }))
      events.push(e);
    const results = events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => (p.codeExecutionResult ? [p.codeExecutionResult] : []));
    expect(results).toEqual([{ outcome: "OUTCOME_OK", output: "Code execution result:\nshared ran print(6 * 7)\n" }]);
    expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("It is 42.");
    model.assertConsumed();
    await runner.close();
    expect(executor.closed).toBe(true);
    await l.close();
  });

  it("a factory called with ADK's list of named args", async () => {
    expect((await loadExecutor("factory_list")).label).toBe("factory from list");
  });

  it("a class constructed with a mapping of args, or with none", async () => {
    const mapped = await loadExecutor("class_map");
    expect(mapped.label).toBe("from map");
    expect(mapped.errorRetryAttempts).toBe(5);
    expect((await loadExecutor("class_bare")).label).toBe("plain");
  });
});

describe("code_executor: built-in names from builtInCodeExecutors", () => {
  it("an instance is used as it is", async () => {
    expect(await loadExecutor("builtin_instance")).toBe(builtInCodeExecutors.FixedExecutor);
  });

  it("a factory gets the args as a mapping (from a mapping or a list) and the YAML file's folder", async () => {
    seen.length = 0;
    expect((await loadExecutor("builtin_map")).tag).toBe("mapped");
    expect((await loadExecutor("builtin_list")).tag).toBe("listed");
    expect(seen).toEqual([
      { args: { tag: "mapped", timeout_seconds: 3 }, baseDir: join(t.dir, "builtin_map") },
      { args: { tag: "listed" }, baseDir: join(t.dir, "builtin_list") },
    ]);
  });
});

describe("code_executor: errors name the file and the field", () => {
  const CASES: { app: string; field: string; message: RegExp }[] = [
    {
      app: "not_executor",
      field: "code_executor",
      message: /code_executor: "\.\/executors\.ts#notAnExecutor" gave a number, expected a code executor/,
    },
    {
      app: "factory_gives_nothing",
      field: "code_executor.name",
      message: /code_executor\.name: "\.\/executors\.ts#makeNothing" gave a plain object, expected a code executor/,
    },
    {
      app: "no_export",
      field: "code_executor",
      message: /code_executor: "\.\/executors\.ts#missing": the module has no export "missing"/,
    },
    {
      app: "unknown_name",
      field: "code_executor",
      message:
        /code_executor: unknown built-in code executor "Nope" \(built-in code executors: FixedExecutor, MadeExecutor, BrokenExecutor\); for your own executor use a code reference such as "\.\/executors\.ts#Nope"$/,
    },
    {
      app: "builtin_bad_args",
      field: "code_executor.args",
      message: /code_executor\.args: MadeExecutor args: timeout_seconds: expected a number\.$/,
    },
    {
      app: "builtin_positional",
      field: "code_executor.args[0].name",
      message:
        /code_executor\.args\[0\]\.name: required: the args of the built-in code executor "MadeExecutor" are named/,
    },
    {
      app: "builtin_instance_args",
      field: "code_executor.args",
      message: /code_executor\.args: the built-in code executor "FixedExecutor" takes no args/,
    },
    {
      app: "builtin_gives_nothing",
      field: "code_executor",
      message: /code_executor: the built-in code executor "BrokenExecutor" gave a string, expected a code executor/,
    },
    { app: "wrong_type", field: "code_executor", message: /code_executor: expected string or object/ },
    { app: "extra_key", field: "code_executor.other", message: /code_executor\.other: unknown field/ },
    { app: "on_workflow", field: "code_executor", message: /code_executor: unknown field/ },
  ];
  it.each(CASES)("$app → $field", async ({ app, field, message }) => {
    const error = await loadError(app);
    expect(error.field).toBe(field);
    expect(error.message).toMatch(message);
  });

  it("without builtInCodeExecutors, a bare name says none were given", async () => {
    const error = await loadError("builtin_instance", false);
    expect(error.field).toBe("code_executor");
    expect(error.message).toMatch(
      /unknown built-in code executor "FixedExecutor" \(built-in code executors: none were given to the loader\)/,
    );
  });
});
