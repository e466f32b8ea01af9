import { basename, isAbsolute, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigurationError, type AgentKitErrorOptions } from "@agentkit/core";

/**
 * A broken app: a file that does not parse, lacks its export or holds an invalid agent config.
 * The message starts with the file (and the field, for YAML configs), e.g.
 * `agents/a/root_agent.yaml: sub_agents[1].model: expected string, received number`. It
 * reaches HTTP clients, so no absolute path stays in it (`relativizePaths`); `file` keeps the
 * absolute one for programs and debug logs.
 */
export class AgentLoadError extends ConfigurationError {
  /** Absolute path of the file at fault. */
  readonly file: string;
  /** Path of the field at fault inside a YAML config (`sub_agents[1].model`), when there is one. */
  readonly field?: string;

  /** `problem` already names the field(s) when there are any; `field` is the first, for programs. */
  constructor(options: { file: string; displayFile: string; field?: string; problem: string } & AgentKitErrorOptions) {
    // displayFile is `file` relative to the agents directory's parent: what is left is that parent.
    const base =
      !isAbsolute(options.displayFile) && options.file.endsWith(options.displayFile)
        ? options.file.slice(0, options.file.length - options.displayFile.length).replace(/[\\/]+$/, "")
        : undefined;
    super(`${relativizePaths(options.displayFile, base)}: ${relativizePaths(options.problem, base)}`, {
      cause: options.cause,
    });
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

// An absolute path (POSIX) or a file URL inside a message: a `/` that starts a token (not the
// rest of a relative path or of a URL), then path segments of ordinary file name characters
// (so `/^gemini-/` in a message is not one).
const ABSOLUTE_PATH = /(?<![\w.~%@+:/-])(?:file:\/\/(?:localhost)?)?\/(?:[\w.@+~%-]+\/)*[\w.@+~%-]+\/?/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching the escape character is the point.
const ANSI_COLOUR = /\u001b\[[0-9;]*m/g;
const UP_PATH = /(?<![\w.~%@+:/-])(?:\.\.\/)+(?:[\w.@+~%-]+\/)*[\w.@+~%-]+/g;

/**
 * Rewrites the absolute paths in `text` (a message a client may see) without the machine's
 * layout: under `base` (the agents directory's parent) relative to it (`agents/a/agent.ts`),
 * inside a `node_modules` from its last `node_modules/`, anything else as `…/<file name>`.
 * File URLs are paths too. `file:` stack frames and line numbers after a path are kept.
 */
export function relativizePaths(text: string, base: string | undefined): string {
  // Terminal colours (compiler diagnostics) mean nothing in a JSON body or a log file.
  const plain = text.replace(ANSI_COLOUR, "");
  // Relative to the working directory (some compilers print `../../x/agents/a/agent.ts`).
  const fromCwd = base
    ? plain.replace(UP_PATH, (match) => {
        const path = resolve(match);
        return path.startsWith(base + sep) ? relative(base, path).split(sep).join("/") : match;
      })
    : plain;
  return fromCwd.replace(ABSOLUTE_PATH, (match) => {
    let path = match;
    if (match.startsWith("file:")) {
      try {
        path = fileURLToPath(match);
      } catch {
        return "…";
      }
    }
    if (base && (path === base || path.startsWith(base + sep))) {
      return relative(base, path).split(sep).join("/") || ".";
    }
    const modules = path.lastIndexOf(`${sep}node_modules${sep}`);
    if (modules >= 0)
      return path
        .slice(modules + 1)
        .split(sep)
        .join("/");
    return `…/${basename(path)}`;
  });
}
