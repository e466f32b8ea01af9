import { relativizePaths, type LogFields, type ServerLogger } from "@agentkit/server";
import type { LogFormat, LogLevel } from "./parse-cli-args.js";
import { createSecretScrubber } from "./secret-scrubber.js";

const RANK: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export interface LoggerOptions {
  /** text (default): `[agentkit] <level> <message>`; json: one JSON object a line. */
  format?: LogFormat;
  /** Values that must never be written (API keys, tokens): replaced by "[REDACTED]" wherever they appear. */
  secrets?: readonly string[];
}

/**
 * A stderr logger that drops messages below `level` (error < warn < info < debug). Below debug,
 * absolute paths become relative to `pathsBase` (the agents directory's parent) or just their
 * file name (`relativizePaths`); debug keeps them, with stacks. Known secrets and bearer
 * credentials are masked in every line, whatever wrote them.
 */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  pathsBase?: string,
  options: LoggerOptions = {},
): ServerLogger {
  const at = RANK[level];
  const scrub = createSecretScrubber(options.secrets ?? []);
  const paths = (text: string) => (at >= RANK.debug ? text : relativizePaths(text, pathsBase));
  const errorText = (error: unknown) =>
    error instanceof Error
      ? at >= RANK.debug
        ? (error.stack ?? error.message)
        : paths(error.message)
      : paths(String(error));
  const line =
    options.format === "json"
      ? (tag: LogLevel, message: string, error?: unknown, fields?: LogFields) =>
          scrub(
            JSON.stringify({
              level: tag,
              time: new Date().toISOString(),
              message: paths(message),
              ...(fields?.appName ? { app: fields.appName } : {}),
              ...(fields?.userId ? { user: fields.userId } : {}),
              ...(fields?.sessionId ? { session: fields.sessionId } : {}),
              ...(fields?.invocationId ? { invocation: fields.invocationId } : {}),
              ...(error === undefined ? {} : { error: errorText(error) }),
            }),
          )
      : (tag: LogLevel, message: string, error?: unknown, fields?: LogFields) =>
          scrub(
            `[agentkit] ${tag} ${paths(message)}${fieldsText(fields)}${error === undefined ? "" : `: ${errorText(error)}`}`,
          );
  return {
    error: (message, error, fields) => write(line("error", message, error, fields)),
    warn: (message, error, fields) => {
      if (at >= RANK.warn) write(line("warn", message, error, fields));
    },
    info: (message, fields) => {
      if (at >= RANK.info) write(line("info", message, undefined, fields));
    },
    debug: (message, fields) => {
      if (at >= RANK.debug) write(line("debug", message, undefined, fields));
    },
  };
}

function fieldsText(fields: LogFields | undefined): string {
  if (!fields) return "";
  const parts = [
    fields.appName && `app=${fields.appName}`,
    fields.sessionId && `session=${fields.sessionId}`,
    fields.invocationId && `invocation=${fields.invocationId}`,
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(" ")})` : "";
}
