import { relativizePaths, type ServerLogger } from "@agentkit/server";
import type { LogLevel } from "./parse-cli-args.js";

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/**
 * A stderr logger that drops messages below `level` (error < warn < info < debug). Below debug,
 * absolute paths become relative to `pathsBase` (the agents directory's parent) or just their
 * file name (`relativizePaths`); debug keeps them, with stacks.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  pathsBase?: string,
): ServerLogger {
  const at = RANK[level];
  const paths = (text: string) => (at >= RANK.debug ? text : relativizePaths(text, pathsBase));
  const format = (tag: string, message: string, error?: unknown) =>
    `[agentkit] ${tag} ${paths(message)}${error === undefined ? "" : `: ${error instanceof Error ? (at >= RANK.debug ? error.stack : paths(error.message)) : paths(String(error))}`}`;
  return {
    error: (message, error) => write(format("error", message, error)),
    warn: (message, error) => {
      if (at >= RANK.warn) write(format("warn", message, error));
    },
    info: (message) => {
      if (at >= RANK.info) write(format("info", message));
    },
  };
}
