import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BaseCodeExecutor,
  ConfigurationError,
  RunAbortedError,
  type CodeExecutionInput,
  type CodeExecutorResult,
  type Delimiters,
  type InvocationContext,
} from "@agentkit/core";
import { lazySchema } from "@agentkit/core/internal";
import { z } from "zod";
import { detectDefaultLanguage, findOnPath, resolvePythonExecutable, type CodeLanguage } from "./interpreter.js";
import { runProcess } from "./run-process.js";
import { collectOutputFiles, writeInputFiles } from "./work-dir.js";

/** Built when an executor is first made, not at import (`lazySchema`). */
const optionsSchema = lazySchema(() => {
  const delimitersSchema = z.tuple([z.string().min(1), z.string()]);
  return z
    .object({
      /** Default: `python` when `python3` is on PATH, else `javascript` (run by this Node binary). */
      language: z.enum(["python", "javascript"]).optional(),
      /** Wall-clock limit of one execution (default 30 s); the process group is killed after it. */
      timeoutMs: z.number().int().positive().optional(),
      /** Memory limit in MiB (default 512): `ulimit -v` for Python, `--max-old-space-size` for Node. */
      memoryLimitMb: z.number().int().min(16).optional(),
      /** Python command (default `python3` from PATH). */
      pythonPath: z.string().min(1).optional(),
      /** Extra environment variables for the code (nothing else is inherited but PATH). */
      env: z.record(z.string(), z.string()).optional(),
      /** Bytes kept of stdout and of stderr each (default 1 MiB). */
      maxOutputBytes: z.number().int().positive().optional(),
      /** Output files collected at most (default 50) and largest file collected (default 10 MiB). */
      maxOutputFiles: z.number().int().nonnegative().optional(),
      maxOutputFileBytes: z.number().int().positive().optional(),
      /** JavaScript only: Node's permission model confines file access to the execution's folder (default true). */
      restrictFileSystem: z.boolean().optional(),
      errorRetryAttempts: z.number().int().nonnegative().optional(),
      stateful: z.boolean().optional(),
      optimizeDataFile: z.boolean().optional(),
      codeBlockDelimiters: z.array(delimitersSchema).optional(),
      executionResultDelimiters: delimitersSchema.optional(),
    })
    .strict();
});

export type LocalCodeExecutorOptions = z.input<ReturnType<typeof optionsSchema>>;

const PYTHON_DELIMITERS: Delimiters[] = [
  ["```tool_code\n", "\n```"],
  ["```python\n", "\n```"],
];
const JAVASCRIPT_DELIMITERS: Delimiters[] = [
  ["```javascript\n", "\n```"],
  ["```js\n", "\n```"],
  ["```tool_code\n", "\n```"],
];

/**
 * Runs model-written code on this machine, each execution in a fresh child process: its own
 * process group (killed on timeout, abort and exit), a memory limit, a new temporary working
 * folder (input files written in, new or changed files collected as output files, removed
 * afterwards) and a scrubbed environment (PATH, HOME/TMPDIR pointing into the folder, locale,
 * plus `env`). It is not a security sandbox: only run it where the model's code may do what
 * the process user may do. ADK calls it `UnsafeLocalCodeExecutor`.
 */
export class LocalCodeExecutor extends BaseCodeExecutor {
  readonly language: CodeLanguage;
  readonly timeoutMs: number;
  readonly memoryLimitMb: number;
  private readonly options: z.output<ReturnType<typeof optionsSchema>>;
  private python?: Promise<string>;

  constructor(options: LocalCodeExecutorOptions = {}) {
    const parsed = optionsSchema().safeParse(options ?? {});
    if (!parsed.success) {
      const detail = parsed.error.issues.map((i) => `${i.path.join(".") || "options"}: ${i.message}`).join("; ");
      throw new ConfigurationError(`Invalid LocalCodeExecutor options: ${detail}.`);
    }
    const o = parsed.data;
    const language = o.language ?? detectDefaultLanguage();
    super({
      errorRetryAttempts: o.errorRetryAttempts,
      stateful: o.stateful,
      optimizeDataFile: o.optimizeDataFile,
      codeBlockDelimiters: o.codeBlockDelimiters ?? (language === "python" ? PYTHON_DELIMITERS : JAVASCRIPT_DELIMITERS),
      executionResultDelimiters: o.executionResultDelimiters,
    });
    if (this.stateful)
      throw new ConfigurationError("LocalCodeExecutor cannot be stateful: every execution runs in a new process.");
    this.language = language;
    this.timeoutMs = o.timeoutMs ?? 30_000;
    this.memoryLimitMb = o.memoryLimitMb ?? 512;
    this.options = o;
  }

  override async executeCode(
    context: InvocationContext | undefined,
    input: CodeExecutionInput,
  ): Promise<CodeExecutorResult> {
    const signal = context?.signal;
    if (signal?.aborted) throw new RunAbortedError();
    const command = await this.command();
    const root = await mkdtemp(join(tmpdir(), "agentkit-exec-"));
    try {
      const workDir = join(root, "work");
      await mkdir(workDir);
      const codeFile = join(root, this.language === "python" ? "main.py" : "main.mjs");
      await writeFile(codeFile, input.code);
      const inputs = await writeInputFiles(workDir, input.inputFiles);
      const { args, runner } = this.arguments(command, root, workDir, codeFile);
      const outcome = await runProcess({
        command: runner,
        args,
        cwd: workDir,
        env: this.environment(workDir),
        timeoutMs: this.timeoutMs,
        maxOutputBytes: this.options.maxOutputBytes ?? 1024 * 1024,
        signal,
      });
      if (outcome.aborted) throw new RunAbortedError();
      const output = await collectOutputFiles(workDir, inputs, {
        maxFiles: this.options.maxOutputFiles ?? 50,
        maxFileBytes: this.options.maxOutputFileBytes ?? 10 * 1024 * 1024,
      });
      let stderr = outcome.stderr;
      const notes: string[] = [];
      if (outcome.timedOut) notes.push(`Execution timed out after ${this.timeoutMs} ms; the process was killed.`);
      else if (outcome.exitCode !== 0 && stderr.trim() === "") {
        notes.push(
          outcome.signal
            ? `Process killed by ${outcome.signal}.`
            : `Process exited with code ${String(outcome.exitCode)}.`,
        );
      }
      if (outcome.outputAbandoned)
        notes.push("A process the code started outside its process group kept the output open; it was not waited for.");
      if (notes.length > 0) stderr = [stderr.trimEnd(), ...notes].filter((s) => s !== "").join("\n");
      let stdout = outcome.stdout;
      if (output.skipped.length > 0) stdout += `\n[output files not collected (limits): ${output.skipped.join(", ")}]`;
      return { stdout, stderr, outputFiles: output.files };
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  }

  /** The interpreter to start: the resolved Python binary, or this Node binary. */
  private async command(): Promise<string> {
    if (this.language === "javascript") return process.execPath;
    this.python ??= (async () => {
      const configured = this.options.pythonPath ?? "python3";
      const found = configured.includes("/") ? configured : findOnPath(configured);
      if (!found)
        throw new ConfigurationError(
          `LocalCodeExecutor: "${configured}" is not on PATH. Install Python 3, set pythonPath, or use language: ` +
            `"javascript".`,
        );
      return resolvePythonExecutable(found);
    })();
    try {
      return await this.python;
    } catch (error) {
      this.python = undefined;
      throw error;
    }
  }

  private arguments(
    command: string,
    root: string,
    workDir: string,
    codeFile: string,
  ): { runner: string; args: string[] } {
    if (this.language === "javascript") {
      const args = [`--max-old-space-size=${this.memoryLimitMb}`];
      // The permission model needs Node 20+; older runtimes run without it.
      if ((this.options.restrictFileSystem ?? true) && process.allowedNodeEnvironmentFlags.has("--permission"))
        args.push("--permission", `--allow-fs-read=${root}`, `--allow-fs-write=${workDir}`);
      return { runner: command, args: [...args, codeFile] };
    }
    // ulimit -v limits the address space of the interpreter and anything it starts.
    const script = 'ulimit -v "$1" || exit 125; shift; exec "$@"';
    return {
      runner: "/bin/sh",
      args: ["-c", script, "sh", String(this.memoryLimitMb * 1024), command, "-I", "-B", codeFile],
    };
  }

  private environment(workDir: string): Record<string, string> {
    return {
      PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
      HOME: workDir,
      TMPDIR: workDir,
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      PYTHONIOENCODING: "utf-8",
      PYTHONUNBUFFERED: "1",
      ...this.options.env,
    };
  }
}

/**
 * ADK's name for the local executor.
 * @alias
 */
export const UnsafeLocalCodeExecutor = LocalCodeExecutor;
export type UnsafeLocalCodeExecutor = LocalCodeExecutor;
