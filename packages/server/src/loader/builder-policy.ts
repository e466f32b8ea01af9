/**
 * Configs written through HTTP (the dev UI's agent builder) carry this comment as their first
 * line. The loader applies the builder's rules to a file holding it, and to every file it
 * reaches through `config_path`: no process-running code executor, no `args`, code only from
 * the app's own folder. Removing the line is how a developer takes such a file over as their own.
 */
export const BUILDER_MARKER = "# agentkit:builder-written";

const MARKER_LINE = /^[ \t]*# ?agentkit:builder-written\b.*$/m;
const MARKER_LINES = /^[ \t]*# ?agentkit:builder-written\b.*(?:\r?\n|$)/gm;

/** True when a YAML text was written through the agent builder (the marker on any line). */
export function isBuilderWritten(text: string): boolean {
  return MARKER_LINE.test(text);
}

/** The text to save for a builder upload: its own marker lines dropped, one marker first. */
export function markBuilderWritten(text: string): string {
  return `${BUILDER_MARKER} (remove this line to take the file over as your own)\n${text.replace(MARKER_LINES, "")}`;
}

/**
 * What configs written through HTTP may name besides files of their app folder. Built-in code
 * executors and tools are listed by name: only ones that run nothing on this machine belong here.
 */
export interface BuilderPolicy {
  /** Built-in code executors (`code_executor: <name>`); code references as executors are never allowed. */
  readonly codeExecutors: readonly string[];
  /** Built-in tools named bare in `tools`. */
  readonly tools: readonly string[];
}

/** The default: no code executor, and of the built-in tools only `exit_loop`. */
export const DEFAULT_BUILDER_POLICY: BuilderPolicy = { codeExecutors: [], tools: ["exit_loop"] };

/** Why a builder-written config may not name this code executor. */
export function builderExecutorProblem(name: string, allowed: readonly string[]): string {
  const why = /^[A-Za-z_][\w]*$/.test(name)
    ? `the code executor "${name}" is not allowed`
    : `a code reference ("${name}") as code executor is not allowed`;
  return (
    `${why} in configs written through the agent builder: it could run processes on the server ` +
    `(allowed: ${allowed.join(", ") || "none"}; write the config as a file to use another executor)`
  );
}
