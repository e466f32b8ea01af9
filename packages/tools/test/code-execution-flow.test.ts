import { describe, expect, it } from "@jest/globals";
import { LlmAgent, RunAbortedError, isFinalResponse, type Event } from "@agentkit/core";
import { CODE_EXECUTION_CONTEXT_KEY } from "@agentkit/core/internal";
import { ScriptedModel, type RecordedRequest } from "@agentkit/core/testing";
import { LocalCodeExecutor } from "../src/index.js";
import { findOnPath } from "../src/code-executors/interpreter.js";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { exited, startRunner, textOf } from "./helpers.js";

const js = (code: string) => `\`\`\`javascript\n${code}\n\`\`\``;
const partsOf = (events: Event[]) => events.map((e) => e.content?.parts ?? []);
const lastContents = (r: RecordedRequest, n: number) => r.contents.slice(-n);

describe("code execution in the LLM flow (LocalCodeExecutor)", () => {
  it("runs a code block from the model, feeds the result back, and ends with the model's answer", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text(
          `Let me compute that.\n${js("console.log([1, 2, 3, 4].reduce((a, b) => a + b, 0) * 7)")}\nDone.`,
        ),
        ScriptedModel.text("The answer is 70."),
      ],
    });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript" }),
    });
    const { send, reload } = await startRunner(agent);
    const events = await send("What is (1+2+3+4)*7?");

    expect(partsOf(events)).toEqual([
      [
        { text: "Let me compute that.\n" },
        {
          executableCode: {
            code: "console.log([1, 2, 3, 4].reduce((a, b) => a + b, 0) * 7)",
            language: "LANGUAGE_UNSPECIFIED",
          },
        },
      ],
      [{ codeExecutionResult: { outcome: "OUTCOME_OK", output: "Code execution result:\n70\n\n" } }],
      [{ text: "The answer is 70." }],
    ]);
    expect(events.map((e) => e.author)).toEqual(["coder", "coder", "coder"]);
    expect(isFinalResponse(events[1]!)).toBe(false);
    // The second request shows the executed code and its output as text.
    const [code, result] = lastContents(model.requests[1]!, 2);
    expect(code).toEqual({
      role: "model",
      parts: [
        { text: "Let me compute that.\n" },
        { text: js("console.log([1, 2, 3, 4].reduce((a, b) => a + b, 0) * 7)") },
      ],
    });
    expect(result).toEqual({ role: "user", parts: [{ text: "```tool_output\nCode execution result:\n70\n\n\n```" }] });
    expect((await reload()).state[CODE_EXECUTION_CONTEXT_KEY]).toEqual({ errorCounts: {} });
    model.assertConsumed();
  });

  it("runs an executableCode part and leaves a response without code alone", async () => {
    const model = new ScriptedModel({
      steps: [
        { content: { role: "model", parts: [{ executableCode: { code: "console.log('hi from part')" } }] } },
        ScriptedModel.text("ok"),
      ],
    });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript" }),
    });
    const events = await (await startRunner(agent)).send("go");
    expect(events[1]!.content?.parts?.[0]?.codeExecutionResult?.output).toBe(
      "Code execution result:\nhi from part\n\n",
    );
    expect(textOf(events[2])).toBe("ok");
  });

  it("counts failures in session state and stops executing after errorRetryAttempts", async () => {
    const failing = ScriptedModel.text(js("throw new Error('bad input')"));
    const model = new ScriptedModel({ steps: [failing, failing, ScriptedModel.text("I could not do it.")] });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript", errorRetryAttempts: 2 }),
    });
    const { send, reload } = await startRunner(agent);
    const events = await send("compute");
    const results = events.flatMap((e) => e.content?.parts ?? []).filter((p) => p.codeExecutionResult);
    expect(results).toHaveLength(2);
    expect(
      results.every(
        (p) =>
          p.codeExecutionResult!.outcome === "OUTCOME_FAILED" &&
          p.codeExecutionResult!.output!.includes("Error: bad input"),
      ),
    ).toBe(true);
    expect(textOf(events.at(-1))).toBe("I could not do it.");
    const invocationId = events[0]!.invocationId;
    expect(events[1]!.actions.stateDelta[CODE_EXECUTION_CONTEXT_KEY]).toEqual({ errorCounts: { [invocationId]: 1 } });
    expect((await reload()).state[CODE_EXECUTION_CONTEXT_KEY]).toEqual({ errorCounts: { [invocationId]: 2 } });
    // The failure reached the model as fenced text.
    const shown = lastContents(model.requests[1]!, 1)[0]!;
    expect(shown.role).toBe("user");
    expect(shown.parts?.[0]?.text).toMatch(/^```tool_output\n[\s\S]*Error: bad input[\s\S]*\n```$/);
  });

  it("with retries used up, code in the response is shown as is and not run", async () => {
    const model = new ScriptedModel({
      steps: [ScriptedModel.text(js("throw new Error('x')")), ScriptedModel.text(js("console.log('never run')"))],
    });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript", errorRetryAttempts: 1 }),
    });
    const events = await (await startRunner(agent)).send("go");
    expect(events).toHaveLength(3);
    expect(textOf(events[2])).toBe(js("console.log('never run')"));
    expect(isFinalResponse(events[2]!)).toBe(true);
  });

  it("a success resets the counter so later failures get their retries again", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.text(js("throw new Error('1')")),
        ScriptedModel.text(js("console.log('fine')")),
        ScriptedModel.text(js("throw new Error('2')")),
        ScriptedModel.text(js("throw new Error('3')")),
        ScriptedModel.text(js("console.log('not run')")),
      ],
    });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript", errorRetryAttempts: 2 }),
    });
    const events = await (await startRunner(agent)).send("go");
    const outcomes = events
      .flatMap((e) => e.content?.parts ?? [])
      .flatMap((p) => (p.codeExecutionResult ? [p.codeExecutionResult.outcome] : []));
    // Without the reset, the third failure would not have been run (2 failures already).
    expect(outcomes).toEqual(["OUTCOME_FAILED", "OUTCOME_OK", "OUTCOME_FAILED", "OUTCOME_FAILED"]);
    expect(textOf(events.at(-1))).toBe(js("console.log('not run')"));
  });

  it("hands the user's inline files to the code and saves its output files as artifacts", async () => {
    const code =
      // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source with a template literal, run by the executor
      "import fs from 'node:fs';\nconst n = fs.readFileSync('sales.csv', 'utf8').trim().split('\\n').length - 1;\nfs.writeFileSync('report.txt', `rows=${n}`);";
    const model = new ScriptedModel({ steps: [ScriptedModel.text(js(code)), ScriptedModel.text("Report saved.")] });
    const agent = new LlmAgent({
      name: "coder",
      model,
      codeExecutor: new LocalCodeExecutor({ language: "javascript", optimizeDataFile: true }),
    });
    const { send, runner, session, reload } = await startRunner(agent);
    const csv = Buffer.from("day,amount\nmon,3\ntue,5\n").toString("base64");
    const events = await send({
      role: "user",
      parts: [
        { text: "Count the rows" },
        { inlineData: { data: csv, mimeType: "text/csv", displayName: "sales.csv" } },
      ],
    });

    const first = model.requests[0]!;
    expect(first.config.systemInstruction).toContain(
      "Files available to your code in its working directory: `sales.csv`.",
    );
    // optimizeDataFile: the request carries a placeholder, not the bytes; the stored event keeps them.
    expect(first.contents.at(-1)).toEqual({
      role: "user",
      parts: [
        { text: "Count the rows" },
        { text: "\nAvailable file: `sales.csv` (first lines):\nday,amount\nmon,3\ntue,5\n\n" },
      ],
    });
    expect(events[1]!.content?.parts?.[0]?.codeExecutionResult).toEqual({
      outcome: "OUTCOME_OK",
      output: "Saved artifacts:\n`report.txt`",
    });
    expect(events[1]!.actions.artifactDelta).toEqual({ "report.txt": 0 });
    const saved = await runner.artifactService.loadArtifact({
      appName: "tools_test",
      userId: "u",
      sessionId: session.id,
      filename: "report.txt",
    });
    expect(Buffer.from(saved!.inlineData!.data!, "base64").toString()).toBe("rows=2");
    expect(saved!.inlineData!.mimeType).toBe("text/plain");
    const stored = await reload();
    expect(stored.events[0]!.content!.parts![1]!.inlineData!.data).toBe(csv);
  });

  it("an abort while code runs kills it and ends the run with RunAbortedError", async () => {
    const pidFile = join(mkdtempSync(join(tmpdir(), "agentkit-test-")), "pid");
    const code =
      "import fs from 'node:fs'; fs.writeFileSync(process.env.PID_FILE, String(process.pid)); setInterval(() => {}, 1000);";
    const model = new ScriptedModel({ steps: [ScriptedModel.text(js(code))] });
    const executor = new LocalCodeExecutor({
      language: "javascript",
      timeoutMs: 60_000,
      restrictFileSystem: false,
      env: { PID_FILE: pidFile },
    });
    const agent = new LlmAgent({ name: "coder", model, codeExecutor: executor });
    const { runner, session } = await startRunner(agent);
    const controller = new AbortController();
    const seen: Event[] = [];
    const run = (async () => {
      for await (const e of runner.runAsync({
        userId: "u",
        sessionId: session.id,
        newMessage: "go",
        signal: controller.signal,
      })) {
        seen.push(e);
        if (e.content?.parts?.some((p) => p.executableCode)) {
          // Aborted once the pid is written, not when the file appears: the file exists (empty)
          // between the code's open and its write, and a kill in between leaves no pid to check.
          const poll = setInterval(() => {
            if (existsSync(pidFile) && readFileSync(pidFile, "utf8") !== "") {
              clearInterval(poll);
              controller.abort();
            }
          }, 20);
        }
      }
    })();
    await expect(run).rejects.toBeInstanceOf(RunAbortedError);
    expect(seen.some((e) => e.content?.parts?.some((p) => p.codeExecutionResult))).toBe(false);
    const pid = Number(readFileSync(pidFile, "utf8"));
    await exited(pid); // the code never ends by itself
    rmSync(dirname(pidFile), { recursive: true, force: true });
  });
});

const python3 = findOnPath("python3");
const pythonIt = python3 ? it : it.skip;

describe(`code execution in the LLM flow with Python (${python3 ? `python3 at ${python3}` : "SKIPPED: python3 is not on PATH"})`, () => {
  pythonIt(
    "runs a ```python block for real and continues with the result",
    async () => {
      const model = new ScriptedModel({
        steps: [
          ScriptedModel.text("```python\nprint(sum(i * i for i in range(10)))\n```"),
          ScriptedModel.text("It is 285."),
        ],
      });
      const agent = new LlmAgent({ name: "coder", model, codeExecutor: new LocalCodeExecutor({ language: "python" }) });
      const events = await (await startRunner(agent)).send("Sum of squares below 10?");
      expect(events[1]!.content?.parts?.[0]?.codeExecutionResult).toEqual({
        outcome: "OUTCOME_OK",
        output: "Code execution result:\n285\n\n",
      });
      expect(JSON.stringify(model.requests[1]!.contents.at(-1))).toContain("285");
      expect(textOf(events.at(-1))).toBe("It is 285.");
    },
    30_000,
  );
});
