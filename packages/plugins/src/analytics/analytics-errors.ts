import { AgentKitError } from "@agentkit/core";

/** The analytics sink did not finish within `closeTimeout`; its signal was aborted. */
export class AnalyticsCloseTimeoutError extends AgentKitError {
  constructor(message: string) {
    super("ANALYTICS_CLOSE_TIMEOUT", message);
  }
}

/**
 * `maxQueueSize` rows were waiting for a slow or failing sink, so new rows were dropped. Reported
 * once when dropping starts and once more, with the count of the rest, when a row fits again or
 * the plugin closes: never once per row.
 */
export class AnalyticsQueueFullError extends AgentKitError {
  constructor(message: string) {
    super("ANALYTICS_QUEUE_FULL", message);
  }
}
