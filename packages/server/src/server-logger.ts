/** What a log line is about, where known: written as fields by structured loggers (never secrets). */
export interface LogFields {
  appName?: string;
  userId?: string;
  sessionId?: string;
  invocationId?: string;
}

/** Where the server reports what clients never see (unexpected errors, shutdown problems). */
export interface ServerLogger {
  error(message: string, error?: unknown, fields?: LogFields): void;
  warn(message: string, error?: unknown, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  /** Diagnostics such as why credentials were refused (never the credentials). Optional. */
  debug?(message: string, fields?: LogFields): void;
}

/** Errors and warnings to stderr; info and debug are dropped. */
export const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`[agentkit] ${message}`, ...(error === undefined ? [] : [error])),
  warn: (message, error) => console.warn(`[agentkit] ${message}`, ...(error === undefined ? [] : [error])),
  info: () => {},
};
