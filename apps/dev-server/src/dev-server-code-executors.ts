import { isAbsolute, resolve } from "node:path";
import { ConfigurationError, type BaseCodeExecutor } from "@agentkit/core";
import { lazySchema } from "@agentkit/core/internal";
import type { BuiltInCodeExecutorEntry, BuiltInToolContext } from "@agentkit/server";
import { z } from "zod";

// The `args` of a YAML `code_executor`, in ADK's snake_case field names. Both schemas are strict
// so a misspelt field is reported instead of silently ignored. Built on first use: a start whose
// configs name no executor builds neither.

const builtInArgsSchema = lazySchema(() =>
  z.strictObject({
    error_retry_attempts: z.number().int().nonnegative().optional(),
  }),
);

const localArgsSchema = lazySchema(() => {
  const delimiters = z.tuple([z.string().min(1), z.string()]);
  return z.strictObject({
    language: z.enum(["python", "javascript"]).optional(),
    /** Seconds; `timeout` is the same (ADK's unit), `timeout_ms` the same in milliseconds. */
    timeout_seconds: z.number().positive().optional(),
    timeout: z.number().positive().optional(),
    timeout_ms: z.number().int().positive().optional(),
    memory_limit_mb: z.number().int().min(16).optional(),
    python_path: z.string().min(1).optional(),
    env: z.record(z.string(), z.string()).optional(),
    max_output_bytes: z.number().int().positive().optional(),
    max_output_files: z.number().int().nonnegative().optional(),
    max_output_file_bytes: z.number().int().positive().optional(),
    restrict_file_system: z.boolean().optional(),
    error_retry_attempts: z.number().int().nonnegative().optional(),
    stateful: z.boolean().optional(),
    optimize_data_file: z.boolean().optional(),
    code_block_delimiters: z.array(delimiters).optional(),
    execution_result_delimiters: delimiters.optional(),
  });
});

/**
 * The code executors YAML agent configs may name bare in `code_executor` in the dev server:
 * ADK's `BuiltInCodeExecutor` (Gemini runs the code) and `UnsafeLocalCodeExecutor` (agentkit's
 * `LocalCodeExecutor`, also accepted under that name: runs it here in a child process).
 * @agentkit/tools is imported only when a config names one.
 */
export function devServerBuiltInCodeExecutors(): Record<string, BuiltInCodeExecutorEntry> {
  const builtIn: BuiltInCodeExecutorEntry = async (args) => {
    const c = parseArgs("BuiltInCodeExecutor", builtInArgsSchema(), args);
    const { BuiltInCodeExecutor } = await import("@agentkit/tools");
    return new BuiltInCodeExecutor({ errorRetryAttempts: c.error_retry_attempts });
  };
  const local =
    (name: string): BuiltInCodeExecutorEntry =>
    async (args, context) =>
      localCodeExecutor(name, args, context);
  return {
    BuiltInCodeExecutor: builtIn,
    UnsafeLocalCodeExecutor: local("UnsafeLocalCodeExecutor"),
    LocalCodeExecutor: local("LocalCodeExecutor"),
  };
}

async function localCodeExecutor(
  name: string,
  args: Record<string, unknown> | undefined,
  { baseDir }: BuiltInToolContext,
): Promise<BaseCodeExecutor> {
  const c = parseArgs(name, localArgsSchema(), args);
  const timeouts = (["timeout_seconds", "timeout", "timeout_ms"] as const).filter((key) => c[key] !== undefined);
  if (timeouts.length > 1)
    throw new ConfigurationError(`${name} args: ${timeouts.join(", ")}: give one timeout, not ${timeouts.length}.`);
  const seconds = c.timeout_seconds ?? c.timeout;
  const timeoutMs = seconds !== undefined ? Math.max(1, Math.round(seconds * 1000)) : c.timeout_ms;
  // A relative interpreter path (`./venv/bin/python`) is relative to the YAML file, like other config paths.
  const pythonPath =
    c.python_path?.includes("/") && !isAbsolute(c.python_path) ? resolve(baseDir, c.python_path) : c.python_path;
  const { LocalCodeExecutor } = await import("@agentkit/tools");
  return new LocalCodeExecutor({
    language: c.language,
    timeoutMs,
    memoryLimitMb: c.memory_limit_mb,
    pythonPath,
    env: c.env,
    maxOutputBytes: c.max_output_bytes,
    maxOutputFiles: c.max_output_files,
    maxOutputFileBytes: c.max_output_file_bytes,
    restrictFileSystem: c.restrict_file_system,
    errorRetryAttempts: c.error_retry_attempts,
    stateful: c.stateful,
    optimizeDataFile: c.optimize_data_file,
    codeBlockDelimiters: c.code_block_delimiters,
    executionResultDelimiters: c.execution_result_delimiters,
  });
}

/** Validates `args`; a failure is a `ConfigurationError` naming each bad field. */
function parseArgs<S extends z.ZodType>(
  name: string,
  schema: S,
  args: Record<string, unknown> | undefined,
): z.output<S> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => {
    if (i.code === "unrecognized_keys") return `${i.keys.join(", ")}: unknown field`;
    return i.path.length ? `${i.path.join(".")}: ${i.message}` : i.message;
  });
  throw new ConfigurationError(`${name} args: ${issues.join("; ")}.`);
}
