import { ConfigurationError } from "@agentkit/core";

/** Limits of `/run_live` WebSockets (see docs/security.md#client-input-and-resource-limits). */
export interface LiveLimits {
  /** Open live sockets in the whole server; more are refused with 503. Default 100. */
  maxSockets?: number;
  /** Open live sockets per client address; more are refused with 429. Default 16. */
  maxSocketsPerClient?: number;
  /** Open live sockets per app and user id; more are refused with 429. Default 8. */
  maxSocketsPerUser?: number;
  /** Largest client frame (ws `maxPayload`); a larger one closes the socket with 1009. Default 4 MiB. */
  maxFrameBytes?: number;
  /** Client frames a socket may hold that its run has not taken yet. Default 64. */
  maxQueuedFrames?: number;
  /** Bytes of such frames a socket may hold; past either bound it closes with 1008. Default 8 MiB. */
  maxQueuedBytes?: number;
  /**
   * How often each live socket is pinged; a socket that has not answered one ping (pong) by the
   * next is terminated and its run aborted (a client whose network dropped). Default 30 s.
   */
  pingIntervalMs?: number;
}

/**
 * Resource limits for a server that faces the public: request bodies, slow clients,
 * connections, live sockets. Every field is optional; `DEFAULT_SERVER_LIMITS` holds the
 * defaults. `0` turns a count or timeout off (not the byte sizes).
 */
export interface ServerLimits {
  /**
   * Bytes of large request bodies (1 MiB or more, by Content-Length; a chunked body counts as
   * `bodyLimit`) being read or handled at once across all requests. A body that does not fit
   * now is refused with 413 and `Retry-After` (it may fit later). Default 64 MiB.
   */
  maxBodyBytesInFlight?: number;
  /** Deepest JSON nesting accepted in a body (`[[[…]]]`); deeper is 400 `JSON_TOO_DEEP`. Default 64. */
  maxJsonDepth?: number;
  /** Time for a client to send the request headers (Node's `headersTimeout`). Default 20 s. */
  headersTimeoutMs?: number;
  /** Time to receive a body once the headers are in; then 408 and the connection closes. Default 60 s. */
  bodyTimeoutMs?: number;
  /** Time to receive a whole request, headers and body (Node's `requestTimeout`). Default 90 s. */
  requestTimeoutMs?: number;
  /** How long an idle keep-alive connection stays open between requests (Node's `keepAliveTimeout`). Default 5 s. */
  keepAliveTimeoutMs?: number;
  /** Open connections per client address; more are answered 429 and closed. Default 128. */
  maxConnectionsPerClient?: number;
  /**
   * Runs one user of one app may start per minute (`/run`, `/run_sse`, `/api/reasoning_engine`,
   * `/run_live`); more are refused with 429 `RATE_LIMITED` and `Retry-After`. A burst of a
   * minute's allowance passes. Per process. Default 0 (off).
   */
  runsPerUserPerMinute?: number;
  /** Runs all users of one app together may start per minute; as above. Default 0 (off). */
  runsPerAppPerMinute?: number;
  /**
   * How long one `/run_sse` frame may wait for a client that stopped reading (the socket's
   * buffer stays full); then the run is aborted, freeing its session's turn, and the connection
   * is closed. Default 30 s.
   */
  sseWriteTimeoutMs?: number;
  /** `/run_live` limits. */
  live?: LiveLimits;
}

export type ResolvedServerLimits = Required<Omit<ServerLimits, "live">> & { live: Required<LiveLimits> };

const MIB = 1024 * 1024;

export const DEFAULT_SERVER_LIMITS: Readonly<ResolvedServerLimits> = Object.freeze({
  maxBodyBytesInFlight: 64 * MIB,
  maxJsonDepth: 64,
  headersTimeoutMs: 20_000,
  bodyTimeoutMs: 60_000,
  requestTimeoutMs: 90_000,
  keepAliveTimeoutMs: 5_000,
  maxConnectionsPerClient: 128,
  runsPerUserPerMinute: 0,
  runsPerAppPerMinute: 0,
  sseWriteTimeoutMs: 30_000,
  live: Object.freeze({
    maxSockets: 100,
    maxSocketsPerClient: 16,
    maxSocketsPerUser: 8,
    maxFrameBytes: 4 * MIB,
    maxQueuedFrames: 64,
    maxQueuedBytes: 8 * MIB,
    pingIntervalMs: 30_000,
  }),
});

/** The default JSON body limit: a 15 MB file attached in the dev UI is 20 MB of base64. */
export const DEFAULT_BODY_LIMIT = "20mb";

/** Fills in the defaults and checks every value (a `ConfigurationError` names the bad one). */
export function resolveServerLimits(limits: ServerLimits = {}, bodyLimitBytes: number): ResolvedServerLimits {
  const out: ResolvedServerLimits = {
    ...DEFAULT_SERVER_LIMITS,
    ...definedOnly(limits),
    live: { ...DEFAULT_SERVER_LIMITS.live, ...definedOnly(limits.live ?? {}) },
  };
  const positive = ["maxBodyBytesInFlight", "maxJsonDepth"] as const;
  const zeroOff = [
    "headersTimeoutMs",
    "bodyTimeoutMs",
    "requestTimeoutMs",
    "keepAliveTimeoutMs",
    "maxConnectionsPerClient",
    "runsPerUserPerMinute",
    "runsPerAppPerMinute",
    "sseWriteTimeoutMs",
  ] as const;
  for (const key of positive) checkInteger(`limits.${key}`, out[key], 1);
  for (const key of zeroOff) checkInteger(`limits.${key}`, out[key], 0);
  for (const key of ["maxSockets", "maxSocketsPerClient", "maxSocketsPerUser", "pingIntervalMs"] as const) {
    checkInteger(`limits.live.${key}`, out.live[key], 0);
  }
  for (const key of ["maxFrameBytes", "maxQueuedFrames", "maxQueuedBytes"] as const) {
    checkInteger(`limits.live.${key}`, out.live[key], 1);
  }
  if (out.maxBodyBytesInFlight < bodyLimitBytes) {
    throw new ConfigurationError(
      `limits.maxBodyBytesInFlight (${out.maxBodyBytesInFlight}) must be at least bodyLimit (${bodyLimitBytes} ` +
        `bytes), or no body of the largest allowed size could ever be read.`,
    );
  }
  if (out.requestTimeoutMs > 0 && out.headersTimeoutMs > out.requestTimeoutMs) {
    throw new ConfigurationError(
      `limits.headersTimeoutMs (${out.headersTimeoutMs}) must not exceed limits.requestTimeoutMs ` +
        `(${out.requestTimeoutMs}).`,
    );
  }
  return out;
}

const UNITS: Readonly<Record<string, number>> = { b: 1, kb: 1024, mb: MIB, gb: 1024 * MIB };

/** `bodyLimit` in bytes: a number, or a string like "20mb" / "64kb" (1024-based, as Express reads it). */
export function parseByteSize(value: number | string, name: string): number {
  if (typeof value === "number" && Number.isSafeInteger(value) && value > 0) return value;
  const match = typeof value === "string" ? /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(value) : null;
  const bytes = match ? Math.floor(Number(match[1]) * UNITS[(match[2] ?? "b").toLowerCase()]!) : Number.NaN;
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new ConfigurationError(
      `${name} must be a positive number of bytes or a size like "20mb", got ${JSON.stringify(value)}.`,
    );
  }
  return bytes;
}

function checkInteger(name: string, value: unknown, min: number): void {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
    throw new ConfigurationError(`${name} must be an integer of at least ${min}, got ${JSON.stringify(value)}.`);
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
