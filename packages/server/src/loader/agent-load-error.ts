import { ConfigurationError, type AgentKitErrorOptions } from "@agentkit/core";

/**
 * A broken app: a file that does not parse, lacks its export or holds an invalid agent config.
 * The message starts with the file (and the field, for YAML configs), e.g.
 * `agents/a/root_agent.yaml: sub_agents[1].model: expected string, received number`.
 */
export class AgentLoadError extends ConfigurationError {
  /** Absolute path of the file at fault. */
  readonly file: string;
  /** Path of the field at fault inside a YAML config (`sub_agents[1].model`), when there is one. */
  readonly field?: string;

  /** `problem` already names the field(s) when there are any; `field` is the first, for programs. */
  constructor(options: { file: string; displayFile: string; field?: string; problem: string } & AgentKitErrorOptions) {
    super(`${options.displayFile}: ${options.problem}`, { cause: options.cause });
    this.file = options.file;
    this.field = options.field;
  }
}

/** The message of anything thrown, for wrapping (without the loader's reload tag in module URLs). */
export function describeError(error: unknown): string {
  const text =
    error instanceof Error
      ? error.name && error.name !== "Error"
        ? `${error.name}: ${error.message}`
        : error.message
      : String(error);
  return text.replace(/\?agentkit-reload=[\w.]+/g, "");
}
