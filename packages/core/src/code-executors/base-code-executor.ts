import type { InvocationContext } from "../context/invocation-context.js";
import { ConfigurationError } from "../errors/agentkit-error.js";
import type { LlmRequest } from "../models/llm-request.js";

/** A file handed to or produced by a code executor (the spec's code-execution `File`). */
export interface CodeExecutionFile {
  /** File name, relative to the execution's working directory. */
  name: string;
  /** The bytes, base64-encoded. */
  content: string;
  mimeType?: string;
}

/** What a code executor runs (the spec's `CodeExecutionInput`). */
export interface CodeExecutionInput {
  code: string;
  inputFiles: CodeExecutionFile[];
  /** Set for stateful executors: executions sharing an id share their interpreter state. */
  executionId?: string;
}

/** What one execution produced (the spec's `CodeExecutionResult`; `@agentkit/tools` exports it under that name). */
export interface CodeExecutorResult {
  stdout: string;
  /** Non-empty means the execution failed (it counts towards `errorRetryAttempts`). */
  stderr: string;
  outputFiles: CodeExecutionFile[];
}

/** A pair of strings that open and close a fenced block, e.g. ["```python\n", "\n```"]. */
export type Delimiters = readonly [start: string, end: string];

export interface BaseCodeExecutorOptions {
  /** Consecutive failed executions the model may retry within one invocation (default 2). */
  errorRetryAttempts?: number;
  /** Keep interpreter state between executions of one session (only where the executor supports it). */
  stateful?: boolean;
  /** Replace data files of user messages in the request by a placeholder naming the file (saves tokens). */
  optimizeDataFile?: boolean;
  /** Fences that mark code to run in model text (first one is used to show executed code back to the model). */
  codeBlockDelimiters?: Delimiters[];
  /** Fence around execution results shown back to the model as text. */
  executionResultDelimiters?: Delimiters;
}

export const DEFAULT_CODE_BLOCK_DELIMITERS: readonly Delimiters[] = [
  ["```tool_code\n", "\n```"],
  ["```python\n", "\n```"],
];
export const DEFAULT_EXECUTION_RESULT_DELIMITERS: Delimiters = ["```tool_output\n", "\n```"];

/**
 * Runs code the model writes. Set one on an `LlmAgent` (`codeExecutor`): after each model
 * response that contains a code block (or an `executableCode` part) the flow runs it, adds a
 * `codeExecutionResult` event and lets the model continue. Model-side executors
 * (`modelSide = true`, e.g. `BuiltInCodeExecutor`) only change the request instead.
 */
export abstract class BaseCodeExecutor {
  readonly errorRetryAttempts: number;
  readonly stateful: boolean;
  readonly optimizeDataFile: boolean;
  readonly codeBlockDelimiters: readonly Delimiters[];
  readonly executionResultDelimiters: Delimiters;

  constructor(options: BaseCodeExecutorOptions = {}) {
    const attempts = options.errorRetryAttempts ?? 2;
    if (!Number.isInteger(attempts) || attempts < 0) {
      throw new ConfigurationError(`errorRetryAttempts must be a non-negative integer, got ${String(attempts)}.`);
    }
    this.errorRetryAttempts = attempts;
    this.stateful = options.stateful ?? false;
    this.optimizeDataFile = options.optimizeDataFile ?? false;
    this.codeBlockDelimiters = options.codeBlockDelimiters ?? DEFAULT_CODE_BLOCK_DELIMITERS;
    this.executionResultDelimiters = options.executionResultDelimiters ?? DEFAULT_EXECUTION_RESULT_DELIMITERS;
    for (const d of [...this.codeBlockDelimiters, this.executionResultDelimiters]) {
      if (!Array.isArray(d) || d.length !== 2 || !d[0] || typeof d[1] !== "string") {
        throw new ConfigurationError(
          `Code delimiters must be [start, end] string pairs with a non-empty start, got ${JSON.stringify(d)}.`,
        );
      }
    }
  }

  /** True when the model runs the code itself; the flow then never executes anything locally. */
  get modelSide(): boolean {
    return false;
  }

  /** Changes the model request before each call (model-side executors declare themselves here). */
  processLlmRequest(_request: LlmRequest): void | Promise<void> {}

  /** Runs one piece of code. Failures of the code itself go to `stderr`; throw only for executor faults. */
  abstract executeCode(context: InvocationContext, input: CodeExecutionInput): Promise<CodeExecutorResult>;

  /** Releases resources (called when the runner closes). */
  async close(): Promise<void> {}
}
