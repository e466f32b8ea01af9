import type { ServerLogger } from "@agentkit/server";
import type { LogLevel } from "./parse-cli-args.js";

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

/** A stderr logger that drops messages below `level` (error < warn < info < debug). */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): ServerLogger {
  const at = RANK[level];
  const format = (tag: string, message: string, error?: unknown) =>
    `[agentkit] ${tag} ${message}${error === undefined ? "" : `: ${error instanceof Error ? (at >= RANK.debug ? error.stack : error.message) : String(error)}`}`;
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
