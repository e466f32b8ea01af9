import { describe, expect, it } from "@jest/globals";
import {
  BaseCodeExecutor,
  ConfigurationError,
  InMemoryRunner,
  LlmAgent,
  StreamingMode,
  type CodeExecutionInput,
  type CodeExecutorResult,
  type Content,
  type Event,
  type InvocationContext,
  type LlmRequest,
} from "../src/index.js";
import {
  CODE_EXECUTION_CONTEXT_KEY,
  buildCodeExecutionResultPart,
  convertCodeExecutionParts,
  extractCodeAndTruncateContent,
  extractInputFiles,
} from "../src/internal.js";
import { ScriptedModel } from "../src/testing/index.js";

/** Records its inputs and answers with scripted results (the real executors live in @agentkit/tools). */
class RecordingExecutor extends BaseCodeExecutor {
  readonly inputs: CodeExecutionInput[] = [];
  closed = 0;
  constructor(
    private readonly results: (CodeExecutorResult | Error)[],
    options: ConstructorParameters<typeof BaseCodeExecutor>[0] = {},
  ) {
    super(options);
  }
  override async executeCode(_ctx: InvocationContext, input: CodeExecutionInput): Promise<CodeExecutorResult> {
    this.inputs.push(input);
    const next = this.results.shift();
    if (!next) throw new Error("no scripted result");
    if (next instanceof Error) throw next;
    return next;
  }
  override async close(): Promise<void> {
    this.closed++;
  }
}

class ModelSideExecutor extends BaseCodeExecutor {
  override get modelSide(): boolean {
    return true;
  }
  override processLlmRequest(request: LlmRequest): void {
    request.config.tools = [...(request.config.tools ?? []), { codeExecution: {} }];
  }
  override async executeCode(): Promise<CodeExecutorResult> {
    throw new Error("must not run");
  }
}

const ok = (stdout: string): CodeExecutorResult => ({ stdout, stderr: "", outputFiles: [] });
const fence = (code: string) => `\`\`\`python\n${code}\n\`\`\``;

async function run(agent: LlmAgent, message: Content | string, streaming = false) {
  const runner = new InMemoryRunner({ agent, appName: "app" });
  const session = await runner.sessionService.createSession({ appName: "app", userId: "u" });
  const events: Event[] = [];
  const runConfig = streaming ? { streamingMode: StreamingMode.SSE } : undefined;
  for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: message, runConfig }))
    events.push(e);
  const stored = (await runner.sessionService.getSession({ appName: "app", userId: "u", sessionId: session.id }))!;
  return { runner, events, stored };
}

describe("code execution utilities", () => {
  it("extracts the first code block and truncates the content after it", () => {
    const content: Content = {
      role: "model",
      parts: [{ text: "First:\n```python\nprint(1)\n```\nthen ```tool_code\nprint(2)\n```" }],
    };
    expect(
      extractCodeAndTruncateContent(content, [
        ["```tool_code\n", "\n```"],
        ["```python\n", "\n```"],
      ]),
    ).toBe("print(1)");
    expect(content.parts).toEqual([{ text: "First:\n" }, { executableCode: { code: "print(1)", language: "PYTHON" } }]);

    const withPart: Content = { parts: [{ text: "a" }, { executableCode: { code: "x=1" } }, { text: "ignored" }] };
    expect(extractCodeAndTruncateContent(withPart, [])).toBe("x=1");
    expect(withPart.parts).toHaveLength(2);

    const unterminated: Content = { parts: [{ text: "```python\nprint(1)" }] };
    expect(extractCodeAndTruncateContent(unterminated, [["```python\n", "\n```"]])).toBeUndefined();
    expect(unterminated.parts).toEqual([{ text: "```python\nprint(1)" }]);
    const thought: Content = { parts: [{ text: fence("secret()"), thought: true }] };
    expect(extractCodeAndTruncateContent(thought, [["```python\n", "\n```"]])).toBeUndefined();
  });

  it("builds result parts and shows code and results to the model as text", () => {
    expect(buildCodeExecutionResultPart(ok("3\n"))).toEqual({
      codeExecutionResult: { outcome: "OUTCOME_OK", output: "Code execution result:\n3\n\n" },
    });
    expect(buildCodeExecutionResultPart({ stdout: "x", stderr: "Traceback", outputFiles: [] })).toEqual({
      codeExecutionResult: { outcome: "OUTCOME_FAILED", output: "Traceback" },
    });
    expect(
      buildCodeExecutionResultPart({
        stdout: "",
        stderr: "",
        outputFiles: [
          { name: "a.png", content: "" },
          { name: "b.csv", content: "" },
        ],
      }),
    ).toEqual({
      codeExecutionResult: { outcome: "OUTCOME_OK", output: "Saved artifacts:\n`a.png`,`b.csv`" },
    });
    const code: Content = { role: "model", parts: [{ text: "t" }, { executableCode: { code: "print(1)" } }] };
    expect(convertCodeExecutionParts(code, ["```py\n", "\n```"], ["```out\n", "\n```"])).toEqual({
      role: "model",
      parts: [{ text: "t" }, { text: "```py\nprint(1)\n```" }],
    });
    const result: Content = { role: "model", parts: [{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "1" } }] };
    expect(convertCodeExecutionParts(result, ["```py\n", "\n```"], ["```out\n", "\n```"])).toEqual({
      role: "user",
      parts: [{ text: "```out\n1\n```" }],
    });
  });

  it("names inline files of user contents and can replace them by placeholders", () => {
    const contents: Content[] = [
      {
        role: "user",
        parts: [
          { text: "hi" },
          { inlineData: { data: "YQ==", mimeType: "text/csv" } },
          { inlineData: { data: "Yg==", mimeType: "text/plain", displayName: "../notes.txt" } },
        ],
      },
      { role: "model", parts: [{ inlineData: { data: "Yw==", mimeType: "image/png" } }] },
    ];
    expect(extractInputFiles(contents, true)).toEqual([
      { name: "data_1_2.csv", content: "YQ==", mimeType: "text/csv" },
      { name: "notes.txt", content: "Yg==", mimeType: "text/plain" },
    ]);
    expect(contents[0]!.parts![1]).toEqual({ text: "\nAvailable file: `data_1_2.csv` (first lines):\na\n" });
    const big: Content[] = [
      {
        role: "user",
        parts: [
          { inlineData: { data: Buffer.from("h\n1\n2\n3\n4\n5\n6\n").toString("base64"), mimeType: "text/csv" } },
          { inlineData: { data: "AAE=", mimeType: "image/png" } },
        ],
      },
    ];
    extractInputFiles(big, true);
    expect(big[0]!.parts).toEqual([
      { text: "\nAvailable file: `data_1_1.csv` (first lines):\nh\n1\n2\n3\n4\n" },
      { text: "\nAvailable file: `data_1_2.png`\n" },
    ]);
    expect(contents[1]!.parts![0]!.inlineData).toBeDefined();
  });

  it("validates executor options and the agent's codeExecutor", () => {
    expect(() => new RecordingExecutor([], { errorRetryAttempts: 1.5 })).toThrow(ConfigurationError);
    expect(() => new RecordingExecutor([], { codeBlockDelimiters: [["", "x"]] })).toThrow(/delimiters/);
    expect(() => new LlmAgent({ name: "a", model: new ScriptedModel(), codeExecutor: {} as never })).toThrow(
      /codeExecutor must be a BaseCodeExecutor/,
    );
  });
});

describe("code execution in the LLM flow", () => {
  it("executes code, records the result event, and continues to the final answer", async () => {
    const executor = new RecordingExecutor([ok("2\n")]);
    const model = new ScriptedModel({
      steps: [ScriptedModel.text(`Sure.\n${fence("print(1+1)")}`), ScriptedModel.text("It is 2.")],
    });
    const { events, stored, runner } = await run(new LlmAgent({ name: "a", model, codeExecutor: executor }), "1+1?");
    expect(executor.inputs).toEqual([{ code: "print(1+1)", inputFiles: [] }]);
    expect(events.map((e) => e.content?.parts)).toEqual([
      [{ text: "Sure.\n" }, { executableCode: { code: "print(1+1)", language: "PYTHON" } }],
      [{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "Code execution result:\n2\n\n" } }],
      [{ text: "It is 2." }],
    ]);
    expect(stored.state[CODE_EXECUTION_CONTEXT_KEY]).toEqual({ errorCounts: {} });
    expect(model.requests[1]!.contents.at(-1)).toEqual({
      role: "user",
      parts: [{ text: "```tool_output\nCode execution result:\n2\n\n\n```" }],
    });
    await runner.close();
    expect(executor.closed).toBe(1);
  });

  it("runs code once per streamed response (never on partial chunks)", async () => {
    const executor = new RecordingExecutor([ok("ok\n")]);
    const model = new ScriptedModel({ steps: [{ chunks: ["```python\npri", "nt('ok')\n```"] }, { chunks: ["done"] }] });
    const { events } = await run(new LlmAgent({ name: "a", model, codeExecutor: executor }), "go", true);
    expect(executor.inputs.map((i) => i.code)).toEqual(["print('ok')"]);
    expect(events.filter((e) => !e.partial).map((e) => Object.keys(e.content!.parts![0]!)[0])).toEqual([
      "executableCode",
      "codeExecutionResult",
      "text",
    ]);
  });

  it("passes input files and the session's execution id to a stateful executor", async () => {
    const executor = new RecordingExecutor([ok("")], { stateful: true });
    const model = new ScriptedModel({ steps: [ScriptedModel.text(fence("x")), ScriptedModel.text("done")] });
    const message: Content = {
      role: "user",
      parts: [{ text: "use it" }, { inlineData: { data: "YQ==", mimeType: "text/csv", displayName: "a.csv" } }],
    };
    const { stored } = await run(new LlmAgent({ name: "a", model, codeExecutor: executor }), message);
    expect(executor.inputs[0]).toEqual({
      code: "x",
      inputFiles: [{ name: "a.csv", content: "YQ==", mimeType: "text/csv" }],
      executionId: stored.id,
    });
    expect(stored.state[CODE_EXECUTION_CONTEXT_KEY]).toEqual({ executionId: stored.id, errorCounts: {} });
    // Without optimizeDataFile the model still sees the file itself.
    expect(model.requests[0]!.contents[0]!.parts![1]!.inlineData?.data).toBe("YQ==");
  });

  it("shows an executor fault to the model as a failed execution; configuration errors end the run", async () => {
    const executor = new RecordingExecutor([new Error("sandbox unavailable")]);
    const model = new ScriptedModel({ steps: [ScriptedModel.text(fence("x")), ScriptedModel.text("sorry")] });
    const { events } = await run(new LlmAgent({ name: "a", model, codeExecutor: executor }), "go");
    expect(events[1]!.content!.parts![0]).toEqual({
      codeExecutionResult: { outcome: "OUTCOME_FAILED", output: "Code executor failed: sandbox unavailable" },
    });
    expect(
      Object.values((events[1]!.actions.stateDelta[CODE_EXECUTION_CONTEXT_KEY] as { errorCounts: object }).errorCounts),
    ).toEqual([1]);

    const broken = new RecordingExecutor([new ConfigurationError("no interpreter")]);
    const again = new ScriptedModel({ steps: [ScriptedModel.text(fence("x"))] });
    await expect(run(new LlmAgent({ name: "a", model: again, codeExecutor: broken }), "go")).rejects.toThrow(
      "no interpreter",
    );
  });

  it("leaves a response with function calls to the tools (its code is not run)", async () => {
    const executor = new RecordingExecutor([]);
    const { FunctionTool } = await import("../src/index.js");
    const lookup = new FunctionTool({ name: "lookup", description: "x", execute: () => ({ value: 1 }) });
    const response = {
      content: { role: "model", parts: [{ text: fence("print(1)") }, { functionCall: { name: "lookup", args: {} } }] },
    };
    const model = new ScriptedModel({ steps: [response, ScriptedModel.text("done")] });
    const { events } = await run(new LlmAgent({ name: "a", model, tools: [lookup], codeExecutor: executor }), "go");
    expect(executor.inputs).toEqual([]);
    expect(events.map((e) => e.content?.parts?.map((p) => Object.keys(p)[0]))).toEqual([
      ["text", "functionCall"],
      ["functionResponse"],
      ["text"],
    ]);
  });

  it("a model-side executor only changes the request", async () => {
    const model = new ScriptedModel({ steps: [ScriptedModel.text(fence("print(1)"))] });
    const { events } = await run(new LlmAgent({ name: "a", model, codeExecutor: new ModelSideExecutor() }), "go");
    expect(model.requests[0]!.config.tools).toEqual([{ codeExecution: {} }]);
    expect(events).toHaveLength(1);
  });
});
