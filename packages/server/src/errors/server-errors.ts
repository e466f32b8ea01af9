import { AgentKitError, type AgentKitErrorOptions } from "@agentkit/core";

/** No app of that name is served (unknown folder, or not an agent). */
export class AppNotFoundError extends AgentKitError {
  readonly appName: string;

  constructor(appName: string, options: AgentKitErrorOptions = {}) {
    super("APP_NOT_FOUND", `App not found: ${appName}`, options);
    this.appName = appName;
  }
}

/**
 * A request the server refuses, with the HTTP status to answer. Route handlers throw it
 * (or any AgentKitError); the error middleware turns it into a JSON error body.
 */
export class HttpRequestError extends AgentKitError {
  readonly status: number;

  constructor(status: number, code: string, message: string, options: AgentKitErrorOptions = {}) {
    super(code, message, options);
    this.status = status;
  }
}
