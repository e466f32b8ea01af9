/** Where the server reports what clients never see (unexpected errors, shutdown problems). */
export interface ServerLogger {
  error(message: string, error?: unknown): void;
  warn(message: string, error?: unknown): void;
  info(message: string): void;
  /** Diagnostics such as why credentials were refused (never the credentials). Optional. */
  debug?(message: string): void;
}

/** Errors and warnings to stderr; info and debug are dropped. */
export const consoleLogger: ServerLogger = {
  error: (message, error) => console.error(`[agentkit] ${message}`, ...(error === undefined ? [] : [error])),
  warn: (message, error) => console.warn(`[agentkit] ${message}`, ...(error === undefined ? [] : [error])),
  info: () => {},
};
