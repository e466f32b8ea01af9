import { parseArgs } from "node:util";
import type { ServerLimits } from "@agentkit/server";
import { CliUsageError } from "./cli-usage-error.js";
import { LIMIT_FLAG_SPECS, parseLimitFlags } from "./limit-flags.js";

export type LogLevel = "error" | "warn" | "info" | "debug";
const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug"];

/** What the server commands (`web`, `api-server`) need. */
export interface ServeOptions {
  agentsDir: string;
  host: string;
  port: number;
  reload: boolean;
  allowOrigins: string[];
  sessionServiceUri?: string;
  artifactServiceUri?: string;
  memoryServiceUri?: string;
  logLevel: LogLevel;
  /** Also serve every app over A2A at `/a2a/{app}` (agent card, JSON-RPC, HTTP+JSON). */
  a2a?: boolean;
  /** web: serve this built dev UI at /dev-ui instead of @agentkit/dev-ui (e.g. ADK's own, from @google/adk-devtools). */
  devUiDir?: string;
  /** Largest JSON body in bytes (`--body-limit`); the server's default when absent. */
  bodyLimit?: number;
  /** Resource limits given as flags (`--headers-timeout-ms`, `--live-max-sockets`, …); defaults for the rest. */
  limits?: ServerLimits;
}

export type CliCommand =
  | { command: "web" | "api-server"; options: ServeOptions }
  | {
      command: "run";
      agentDir: string;
      sessionServiceUri?: string;
      artifactServiceUri?: string;
      memoryServiceUri?: string;
      logLevel: LogLevel;
    }
  | { command: "conformance"; mode: "record" | "test"; casesDir: string; agentsDir: string }
  | { command: "help"; topic?: string }
  | { command: "version" };

const SERVE_FLAGS: FlagSpec = {
  host: { type: "string" },
  port: { type: "string" },
  reload: { type: "boolean" },
  "no-reload": { type: "boolean" },
  "allow-origins": { type: "string", multiple: true },
  "session-service-uri": { type: "string" },
  "artifact-service-uri": { type: "string" },
  "memory-service-uri": { type: "string" },
  "log-level": { type: "string" },
  a2a: { type: "boolean" },
  "dev-ui-dir": { type: "string" },
  ...LIMIT_FLAG_SPECS,
};

/**
 * Parses `agentkit <command> [args] [flags]`. Flags fall back to `AGENTKIT_*` environment
 * variables (design.md section 2), then to the defaults of ADK's CLI.
 */
export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliCommand {
  const [command, ...rest] = argv;
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h":
      return { command: "help", ...(rest[0] ? { topic: rest[0] } : {}) };
    case "version":
    case "--version":
      return { command: "version" };
    case "web":
    case "api-server": {
      const { values, positionals } = parse(rest, SERVE_FLAGS, command);
      if (positionals.length > 1)
        throw new CliUsageError(
          `agentkit ${command} takes one agents directory, got ${positionals.length}: ${positionals.join(" ")}`,
        );
      if (values.reload && values["no-reload"])
        throw new CliUsageError("--reload and --no-reload contradict each other.");
      const reload = values.reload ? true : values["no-reload"] ? false : command === "web";
      const devUiDir = str(values, "dev-ui-dir") ?? (env.AGENTKIT_DEV_UI_DIR || undefined);
      if (devUiDir !== undefined && command !== "web")
        throw new CliUsageError("--dev-ui-dir applies to agentkit web only (api-server serves no UI).");
      return {
        command,
        options: {
          agentsDir: positionals[0] ?? ".",
          host: str(values, "host") ?? env.AGENTKIT_HOST ?? "127.0.0.1",
          port: parsePort(str(values, "port") ?? env.AGENTKIT_PORT ?? "8000"),
          reload,
          allowOrigins: splitList(
            values["allow-origins"]
              ? strings(values, "allow-origins")
              : env.AGENTKIT_ALLOW_ORIGINS
                ? [env.AGENTKIT_ALLOW_ORIGINS]
                : [],
          ),
          ...serviceUris(values, env),
          logLevel: parseLogLevel(str(values, "log-level") ?? env.AGENTKIT_LOG_LEVEL ?? "info"),
          a2a: values.a2a === true || env.AGENTKIT_A2A === "1" || env.AGENTKIT_A2A === "true",
          ...(devUiDir !== undefined ? { devUiDir } : {}),
          ...parseLimitFlags(values, env),
        },
      };
    }
    case "run": {
      const {
        host: _h,
        port: _p,
        reload: _r,
        "no-reload": _n,
        "allow-origins": _o,
        a2a: _a,
        "dev-ui-dir": _d,
        ...serveAndRunFlags
      } = SERVE_FLAGS;
      // The limit flags are the server's: `run` has none.
      const runFlags = Object.fromEntries(
        Object.entries(serveAndRunFlags).filter(([flag]) => !(flag in LIMIT_FLAG_SPECS)),
      );
      const { values, positionals } = parse(rest, runFlags, command);
      if (positionals.length !== 1)
        throw new CliUsageError("agentkit run takes exactly one agent directory: agentkit run <agent_dir>");
      return {
        command,
        agentDir: positionals[0]!,
        ...serviceUris(values, env),
        logLevel: parseLogLevel(str(values, "log-level") ?? env.AGENTKIT_LOG_LEVEL ?? "warn"),
      };
    }
    case "conformance": {
      const { values, positionals } = parse(rest, { "agents-dir": { type: "string" } }, command);
      const [mode, casesDir, ...extra] = positionals;
      if ((mode !== "record" && mode !== "test") || !casesDir || extra.length) {
        throw new CliUsageError("Usage: agentkit conformance record|test <cases_dir> [--agents-dir <dir>]");
      }
      return { command, mode, casesDir, agentsDir: str(values, "agents-dir") ?? "." };
    }
    default:
      throw new CliUsageError(`Unknown command "${command}". Commands: web, api-server, run, conformance, help.`);
  }
}

type FlagSpec = Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
type FlagValues = Record<string, string | boolean | (string | boolean)[] | undefined>;

function parse(args: string[], options: FlagSpec, command: string): { values: FlagValues; positionals: string[] } {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(`agentkit ${command}: ${(error as Error).message}`);
  }
}

function str(values: FlagValues, flag: string): string | undefined {
  const v = values[flag];
  return typeof v === "string" && v !== "" ? v : undefined;
}

function strings(values: FlagValues, flag: string): string[] {
  const v = values[flag];
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function serviceUris(values: FlagValues, env: NodeJS.ProcessEnv) {
  const pick = (flag: string, envName: string): string | undefined => str(values, flag) ?? (env[envName] || undefined);
  const out: { sessionServiceUri?: string; artifactServiceUri?: string; memoryServiceUri?: string } = {};
  const s = pick("session-service-uri", "AGENTKIT_SESSION_SERVICE_URI");
  const a = pick("artifact-service-uri", "AGENTKIT_ARTIFACT_SERVICE_URI");
  const m = pick("memory-service-uri", "AGENTKIT_MEMORY_SERVICE_URI");
  if (s) out.sessionServiceUri = s;
  if (a) out.artifactServiceUri = a;
  if (m) out.memoryServiceUri = m;
  return out;
}

function parsePort(raw: string): number {
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65535)
    throw new CliUsageError(`--port must be an integer from 0 to 65535, got "${raw}".`);
  return port;
}

function parseLogLevel(raw: string): LogLevel {
  const level = raw.toLowerCase() as LogLevel;
  if (!LOG_LEVELS.includes(level))
    throw new CliUsageError(`--log-level must be one of ${LOG_LEVELS.join(", ")}, got "${raw}".`);
  return level;
}

/** `--allow-origins a,b --allow-origins c` → [a, b, c]. */
function splitList(values: string[]): string[] {
  return values
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
}
