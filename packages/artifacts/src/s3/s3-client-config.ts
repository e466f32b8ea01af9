import type { S3ClientConfig } from "@aws-sdk/client-s3";
import { ConfigurationError } from "@agentkit/core";
import type { S3ArtifactServiceOptions } from "./s3-options.js";

/** Default bound on opening a connection, for a client the service creates (the SDK has none). */
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Default bound on a silent socket, for a client the service creates (the SDK has none). */
const DEFAULT_IDLE_TIMEOUT_MS = 30_000;

/**
 * The config of a client the service creates, with bounds the AWS SDK leaves off: the Node
 * handler's `connectionTimeout` (opening the TCP connection) and `socketTimeout` (a rolling idle
 * timer on the socket, armed through the response body). Its `requestTimeout` is left unset: in
 * @smithy/node-http-handler 4.x it is a wall-clock limit on the exchange up to the response
 * headers (upload included), which would cut a large upload on a slow link. Precedence: the
 * service option, then the same field of a plain-options `clientConfig.requestHandler`, then the
 * default. A handler instance, like a client, is used as given.
 */
export function withTimeouts(options: S3ArtifactServiceOptions): S3ClientConfig {
  const config = options.clientConfig ?? {};
  const handler = config.requestHandler;
  const handlerInstance = typeof (handler as { handle?: unknown } | undefined)?.handle === "function";
  const timeouts = { connectTimeoutMs: options.connectTimeoutMs, idleTimeoutMs: options.idleTimeoutMs };
  for (const [name, value] of Object.entries(timeouts)) {
    if (value === undefined) continue;
    if (options.client !== undefined || handlerInstance) {
      throw new ConfigurationError(
        `S3ArtifactService applies ${name} only to a client and request handler it creates: set the timeouts on ` +
          `the ${options.client !== undefined ? "client" : "request handler"} you pass in.`,
      );
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new ConfigurationError(
        `S3ArtifactService ${name} must be a number of milliseconds, 0 or more (0 turns it off); got ${String(value)}.`,
      );
    }
  }
  if (options.client !== undefined || handlerInstance) return config;
  const handlerOptions = (handler ?? {}) as Record<string, unknown>;
  return {
    ...config,
    requestHandler: {
      ...handlerOptions,
      connectionTimeout: timeouts.connectTimeoutMs ?? handlerOptions.connectionTimeout ?? DEFAULT_CONNECT_TIMEOUT_MS,
      socketTimeout: timeouts.idleTimeoutMs ?? handlerOptions.socketTimeout ?? DEFAULT_IDLE_TIMEOUT_MS,
    },
  };
}
