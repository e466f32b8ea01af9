import { parseByteSize, type LiveLimits, type ServerLimits } from "@agentkit/server";
import { CliUsageError } from "./cli-usage-error.js";

type Kind = "size" | "count" | "ms";

/** The server's resource limits as flags of web and api-server: flag → [where it goes, kind]. */
const LIMIT_FLAGS: Readonly<Record<string, [keyof ServerLimits | `live.${keyof LiveLimits}` | "bodyLimit", Kind]>> = {
  "body-limit": ["bodyLimit", "size"],
  "body-bytes-in-flight": ["maxBodyBytesInFlight", "size"],
  "max-json-depth": ["maxJsonDepth", "count"],
  "headers-timeout-ms": ["headersTimeoutMs", "ms"],
  "body-timeout-ms": ["bodyTimeoutMs", "ms"],
  "request-timeout-ms": ["requestTimeoutMs", "ms"],
  "keep-alive-timeout-ms": ["keepAliveTimeoutMs", "ms"],
  "max-connections-per-client": ["maxConnectionsPerClient", "count"],
  "runs-per-user-per-minute": ["runsPerUserPerMinute", "count"],
  "runs-per-app-per-minute": ["runsPerAppPerMinute", "count"],
  "sse-write-timeout-ms": ["sseWriteTimeoutMs", "ms"],
  "live-max-sockets": ["live.maxSockets", "count"],
  "live-max-sockets-per-client": ["live.maxSocketsPerClient", "count"],
  "live-max-sockets-per-user": ["live.maxSocketsPerUser", "count"],
  "live-max-frame-bytes": ["live.maxFrameBytes", "size"],
  "live-max-queued-frames": ["live.maxQueuedFrames", "count"],
  "live-max-queued-bytes": ["live.maxQueuedBytes", "size"],
  "live-ping-interval-ms": ["live.pingIntervalMs", "ms"],
};

/** The flag specs, for `parseArgs`. */
export const LIMIT_FLAG_SPECS = Object.fromEntries(
  Object.keys(LIMIT_FLAGS).map((flag) => [flag, { type: "string" as const }]),
);

/** `--body-limit` → `AGENTKIT_BODY_LIMIT`. */
export function limitEnvName(flag: string): string {
  return `AGENTKIT_${flag.toUpperCase().replace(/-/g, "_")}`;
}

/**
 * The limit flags given (or their `AGENTKIT_*` variables): `bodyLimit` and `limits` for
 * createAgentServer, only with what was set. Sizes take bytes or "20mb"/"64kb"; counts and
 * milliseconds are integers (0 turns a count or timeout off).
 */
export function parseLimitFlags(
  values: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
): { bodyLimit?: number; limits?: ServerLimits } {
  let bodyLimit: number | undefined;
  const limits: Record<string, number> = {};
  const live: Record<string, number> = {};
  for (const [flag, [target, kind]] of Object.entries(LIMIT_FLAGS)) {
    const given = values[flag];
    const raw = typeof given === "string" && given !== "" ? given : env[limitEnvName(flag)] || undefined;
    if (raw === undefined) continue;
    const value = kind === "size" ? size(flag, raw) : integer(flag, raw);
    if (target === "bodyLimit") bodyLimit = value;
    else if (target.startsWith("live.")) live[target.slice("live.".length)] = value;
    else limits[target] = value;
  }
  if (Object.keys(live).length > 0) (limits as ServerLimits).live = live;
  return {
    ...(bodyLimit !== undefined ? { bodyLimit } : {}),
    ...(Object.keys(limits).length > 0 ? { limits: limits as ServerLimits } : {}),
  };
}

function size(flag: string, raw: string): number {
  try {
    return parseByteSize(/^\d+$/.test(raw) ? Number(raw) : raw, `--${flag}`);
  } catch (error) {
    throw new CliUsageError((error as Error).message);
  }
}

function integer(flag: string, raw: string): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new CliUsageError(`--${flag} must be a non-negative integer, got "${raw}".`);
  }
  return Number(raw);
}
