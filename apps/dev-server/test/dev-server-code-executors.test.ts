import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  InMemoryRunner,
  LlmAgent,
  ModelRegistry,
  createLlmRequest,
  createUserContent,
  type Event,
} from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createModelRegistry } from "@agentkit/models";
import { AgentLoadError, createDirectoryAgentLoader } from "@agentkit/server";
import { BuiltInCodeExecutor, LocalCodeExecutor } from "@agentkit/tools";
import { devServerBuiltInCodeExecutors } from "../src/dev-server-code-executors.js";
import { devServerBuiltInTools } from "../src/dev-server-tools.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-yaml-code-executors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function app(name: string, yaml: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "root_agent.yaml"), yaml);
}

/** Loads one app through the loader the dev server builds (its tool and code executor maps). */
async function load(name: string, modelRegistry: ModelRegistry = createModelRegistry()): Promise<LlmAgent> {
  const loader = createDirectoryAgentLoader({
    agentsDir: dir,
    reload: false,
    modelRegistry,
    builtInTools: devServerBuiltInTools(),
    builtInCodeExecutors: devServerBuiltInCodeExecutors(),
  });
  try {
    const { rootAgent } = await loader.loadApp(name);
    expect(rootAgent).toBeInstanceOf(LlmAgent);
    return rootAgent as LlmAgent;
  } finally {
    await loader.close();
  }
}

async function loadError(name: string): Promise<AgentLoadError> {
  const error = await load(name).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentLoadError);
  expect((error as AgentLoadError).file).toBe(join(dir, name, "root_agent.yaml"));
  return error as AgentLoadError;
}

describe("code executors YAML agent configs can name in the dev server", () => {
  it("UnsafeLocalCodeExecutor runs the model's code for real and the result is an event", async () => {
    app(
      "local_app",
      `name: coder
model: test-model
instruction: Compute with code.
code_executor:
  name: UnsafeLocalCodeExecutor
  args:
    language: javascript
    timeout_seconds: 20
    memory_limit_mb: 256
    error_retry_attempts: 1
    env:
      GREETING: hello
`,
    );
    const code = "console.log(process.env.GREETING, [1, 2, 3, 4].reduce((a, b) => a + b, 0) * 7)";
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text(`Let me compute.\n\`\`\`javascript\n${code}\n\`\`\``),
        ScriptedModel.text("It is 70."),
      ],
    });
    const modelRegistry = new ModelRegistry().register("test-model", () => model);
    const agent = await load("local_app", modelRegistry);
    const executor = agent.codeExecutor;
    expect(executor).toBeInstanceOf(LocalCodeExecutor);
    expect(executor).toMatchObject({
      language: "javascript",
      timeoutMs: 20_000,
      memoryLimitMb: 256,
      errorRetryAttempts: 1,
    });

    const runner = new InMemoryRunner({ agent, appName: "local_app", modelRegistry });
    try {
      const session = await runner.sessionService.createSession({ appName: "local_app", userId: "u" });
      const events: Event[] = [];
      for await (const e of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: createUserContent("(1+2+3+4)*7?"),
      }))
        events.push(e);
      expect(events.map((e) => e.content?.parts ?? [])).toEqual([
        [{ text: "Let me compute.\n" }, { executableCode: { code, language: "LANGUAGE_UNSPECIFIED" } }],
        [{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "Code execution result:\nhello 70\n\n" } }],
        [{ text: "It is 70." }],
      ]);
      model.assertConsumed();
    } finally {
      await runner.close();
    }
  }, 60_000);

  it("LocalCodeExecutor with ADK's list of args, timeout in milliseconds", async () => {
    app(
      "local_list",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: LocalCodeExecutor\n  args:\n    - name: ` +
        `language\n      value: javascript\n    - name: timeout_ms\n      value: 1500\n`,
    );
    expect((await load("local_list")).codeExecutor).toMatchObject({
      language: "javascript",
      timeoutMs: 1500,
      memoryLimitMb: 512,
    });
  });

  it("a relative python_path is relative to the YAML file", async () => {
    app(
      "py_path",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: UnsafeLocalCodeExecutor\n  args:\n    language: ` +
        `python\n    python_path: ./missing/python\n`,
    );
    const executor = (await load("py_path")).codeExecutor!;
    const python = join(dir, "py_path", "missing", "python");
    await expect(executor.executeCode(undefined as never, { code: "print(1)", inputFiles: [] })).rejects.toThrow(
      `Cannot run Python ("${python}")`,
    );
  });

  it("BuiltInCodeExecutor named from YAML with a Gemini model builds and declares Gemini's code execution", async () => {
    app(
      "builtin_app",
      `name: gemini_coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: BuiltInCodeExecutor\n  args:\n    ` +
        `error_retry_attempts: 3\n`,
    );
    app("builtin_bare", `name: gemini_coder\nmodel: gemini-2.5-flash\ncode_executor: BuiltInCodeExecutor\n`);
    const agent = await load("builtin_app");
    expect(agent.model).toBe("gemini-2.5-flash");
    const executor = agent.codeExecutor!;
    expect(executor).toBeInstanceOf(BuiltInCodeExecutor);
    expect(executor.modelSide).toBe(true);
    expect(executor.errorRetryAttempts).toBe(3);
    const request = createLlmRequest({ model: "gemini-2.5-flash" });
    await executor.processLlmRequest(request);
    expect(request.config.tools).toContainEqual({ codeExecution: {} });
    expect((await load("builtin_bare")).codeExecutor).toBeInstanceOf(BuiltInCodeExecutor);
  });

  it("bad args are load errors naming the file, the field and the arg", async () => {
    app(
      "bad_timeout",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: UnsafeLocalCodeExecutor\n  args:\n    ` +
        `timeout_seconds: -1\n`,
    );
    app(
      "two_timeouts",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: UnsafeLocalCodeExecutor\n  args:\n    timeout: ` +
        `5\n    timeout_ms: 100\n`,
    );
    app(
      "misspelt",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: UnsafeLocalCodeExecutor\n  args:\n    ` +
        `memory_limit: 64\n`,
    );
    app(
      "builtin_extra",
      `name: coder\nmodel: gemini-2.5-flash\ncode_executor:\n  name: BuiltInCodeExecutor\n  args:\n    language: ` +
        `python\n`,
    );
    app("unknown_name", `name: coder\nmodel: gemini-2.5-flash\ncode_executor: ContainerCodeExecutor\n`);

    const timeout = await loadError("bad_timeout");
    expect(timeout.field).toBe("code_executor.args");
    expect(timeout.message).toMatch(
      /bad_timeout\/root_agent\.yaml: code_executor\.args: UnsafeLocalCodeExecutor args: timeout_seconds: Too small/,
    );
    expect((await loadError("two_timeouts")).message).toMatch(
      /code_executor\.args: UnsafeLocalCodeExecutor args: timeout, timeout_ms: give one timeout, not 2\./,
    );
    expect((await loadError("misspelt")).message).toMatch(
      /code_executor\.args: UnsafeLocalCodeExecutor args: memory_limit: unknown field\./,
    );
    expect((await loadError("builtin_extra")).message).toMatch(
      /code_executor\.args: BuiltInCodeExecutor args: language: unknown field\./,
    );
    const unknown = await loadError("unknown_name");
    expect(unknown.field).toBe("code_executor");
    expect(unknown.message).toMatch(
      /unknown built-in code executor "ContainerCodeExecutor" \(built-in code executors: BuiltInCodeExecutor, UnsafeLocalCodeExecutor, LocalCodeExecutor\)/,
    );
  });
});
