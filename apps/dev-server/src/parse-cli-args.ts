import type { ServerLimits } from "@agentkit/server";
import { CliUsageError } from "./cli-usage-error.js";
import { type FlagSpec, type FlagValues, parse, str, strings } from "./cli-flags.js";
import {
  type EvalCommandOptions,
  type EvalSetCommandOptions,
  parseEvalArgs,
  parseEvalSetArgs,
} from "./parse-eval-args.js";
import { LIMIT_FLAG_SPECS, parseLimitFlags } from "./limit-flags.js";

export type LogLevel = "error" | "warn" | "info" | "debug";
const LOG_LEVELS: readonly LogLevel[] = ["error", "warn", "info", "debug"];
export type LogFormat = "text" | "json";

/** What the server commands (`web`, `api-server`) need. */
export interface ServeOptions {
  agentsDir: string;
  host: string;
  port: number;
  reload: boolean;
  /** Load every app and its models right after listening, between requests (`--no-warm-up`: only when a request needs one). Default true. */
  warmUp?: boolean;
  allowOrigins: string[];
  sessionServiceUri?: string;
  artifactServiceUri?: string;
  memoryServiceUri?: string;
  logLevel: LogLevel;
  /** `--log-format text|json`: json writes one JSON object a line (level, time, message, ids). Default text. */
  logFormat?: LogFormat;
  /**
   * `--otel`: export traces, metrics and logs over OTLP/HTTP to the endpoints of the standard
   * `OTEL_EXPORTER_OTLP_*` variables; `captureContent` adds prompts and responses to spans.
   */
  otel?: { captureContent: boolean };
  /** Also serve every app over A2A at `/a2a/{app}` (agent card, JSON-RPC, HTTP+JSON). */
  a2a?: boolean;
  /**
   * web: serve this built dev UI at /dev-ui instead of @agentkit/dev-ui (e.g. ADK's own, from @google/adk-devtools).
   */
  devUiDir?: string;
  /** Host names accepted in the Host header besides the bound address (the DNS-rebinding check). */
  allowedHosts?: string[];
  /** Authentication; absent: none (the server then refuses a non-loopback host unless `insecureNoAuth`). */
  auth?: ServeAuth;
  /** Bind a non-loopback host without authentication, knowingly. */
  insecureNoAuth?: boolean;
  /** Largest JSON body in bytes (`--body-limit`); the server's default when absent. */
  bodyLimit?: number;
  /**
   * `--session-lock store|process`: runs on a session wait for each other across replicas
   * through the session store (PostgreSQL, MongoDB; the default) or only within this process.
   */
  sessionLock?: "store" | "process";
  /** `--session-lock-wait-ms`: how long a run waits for the store's session lock (default 30000). */
  sessionLockWaitMs?: number;
  /**
   * `--idle-memory-ms`: how long the server must be quiet before it gives back the memory a busy
   * period grew (one full collection); 0 turns it off. The server's default (30000) when absent.
   */
  idleMemoryMs?: number;
  /** Resource limits given as flags (`--headers-timeout-ms`, `--live-max-sockets`, …); defaults for the rest. */
  limits?: ServerLimits;
  /**
   * web: the model that plays the user of conversation-scenario eval cases (any registry name);
   * absent: each app's own agent model.
   */
  userSimulatorModel?: string;
}

/** `--auth` and the flags of its mode. */
export type ServeAuth =
  | {
      mode: "api-key";
      /** `--api-keys-file` (or AGENTKIT_API_KEYS_FILE): `<key> <userId> [scope…]` per line. */
      keysFile?: string;
      /** AGENTKIT_API_KEYS: the entries themselves (`;` or newlines between them). */
      keysText?: string;
    }
  | {
      mode: "jwt";
      jwksUrl?: string;
      publicKeyFile?: string;
      issuer: string[];
      audience: string[];
      userClaim: string;
    };

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
  | { command: "eval"; options: EvalCommandOptions }
  | { command: "eval_set"; options: EvalSetCommandOptions }
  | { command: "help"; topic?: string }
  | { command: "version" };

const SERVE_FLAGS: FlagSpec = {
  host: { type: "string" },
  port: { type: "string" },
  reload: { type: "boolean" },
  "no-reload": { type: "boolean" },
  "no-warm-up": { type: "boolean" },
  "allow-origins": { type: "string", multiple: true },
  "session-service-uri": { type: "string" },
  "artifact-service-uri": { type: "string" },
  "memory-service-uri": { type: "string" },
  "log-level": { type: "string" },
  "log-format": { type: "string" },
  otel: { type: "boolean" },
  "otel-capture-content": { type: "boolean" },
  a2a: { type: "boolean" },
  "dev-ui-dir": { type: "string" },
  "user-simulator-model": { type: "string" },
  "allowed-hosts": { type: "string", multiple: true },
  auth: { type: "string" },
  "api-keys-file": { type: "string" },
  "jwt-jwks-url": { type: "string" },
  "jwt-public-key-file": { type: "string" },
  "jwt-issuer": { type: "string" },
  "jwt-audience": { type: "string" },
  "jwt-user-claim": { type: "string" },
  "insecure-no-auth": { type: "boolean" },
  "session-lock": { type: "string" },
  "session-lock-wait-ms": { type: "string" },
  "idle-memory-ms": { type: "string" },
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
      const flagSimulator = str(values, "user-simulator-model");
      if (flagSimulator !== undefined && command !== "web")
        throw new CliUsageError("--user-simulator-model applies to agentkit web only (api-server runs no evals).");
      const userSimulatorModel =
        command === "web" ? (flagSimulator ?? (env.AGENTKIT_USER_SIMULATOR_MODEL || undefined)) : undefined;
      const auth = parseAuth(values, env);
      const insecureNoAuth = values["insecure-no-auth"] === true || isTrue(env.AGENTKIT_INSECURE_NO_AUTH);
      if (insecureNoAuth && auth) throw new CliUsageError(`--insecure-no-auth contradicts --auth ${auth.mode}.`);
      const allowedHosts = splitList(
        values["allowed-hosts"]
          ? strings(values, "allowed-hosts")
          : env.AGENTKIT_ALLOWED_HOSTS
            ? [env.AGENTKIT_ALLOWED_HOSTS]
            : [],
      );
      return {
        command,
        options: {
          agentsDir: positionals[0] ?? ".",
          host: str(values, "host") ?? env.AGENTKIT_HOST ?? "127.0.0.1",
          port: parsePort(str(values, "port") ?? env.AGENTKIT_PORT ?? "8000"),
          reload,
          ...(values["no-warm-up"] === true || isFalse(env.AGENTKIT_WARM_UP) ? { warmUp: false } : {}),
          allowOrigins: splitList(
            values["allow-origins"]
              ? strings(values, "allow-origins")
              : env.AGENTKIT_ALLOW_ORIGINS
                ? [env.AGENTKIT_ALLOW_ORIGINS]
                : [],
          ),
          ...serviceUris(values, env),
          logLevel: parseLogLevel(str(values, "log-level") ?? env.AGENTKIT_LOG_LEVEL ?? "info"),
          ...parseLogFormat(values, env),
          ...parseOtel(values, env),
          a2a: values.a2a === true || env.AGENTKIT_A2A === "1" || env.AGENTKIT_A2A === "true",
          ...(devUiDir !== undefined ? { devUiDir } : {}),
          ...(userSimulatorModel !== undefined ? { userSimulatorModel } : {}),
          ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
          ...(auth ? { auth } : {}),
          ...(insecureNoAuth ? { insecureNoAuth } : {}),
          ...parseSessionLock(values, env),
          ...parseIdleMemory(values, env),
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
        "no-warm-up": _w,
        "allow-origins": _o,
        a2a: _a,
        "dev-ui-dir": _d,
        "user-simulator-model": _usm,
        "allowed-hosts": _ah,
        auth: _auth,
        "api-keys-file": _k,
        "jwt-jwks-url": _j1,
        "jwt-public-key-file": _j2,
        "jwt-issuer": _j3,
        "jwt-audience": _j4,
        "jwt-user-claim": _j5,
        "insecure-no-auth": _i,
        "session-lock": _sl,
        "session-lock-wait-ms": _slw,
        "idle-memory-ms": _im,
        "log-format": _lf,
        otel: _ot,
        "otel-capture-content": _oc,
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
    case "eval":
      return { command, options: parseEvalArgs(rest) };
    case "eval_set":
      return { command, options: parseEvalSetArgs(rest) };
    default:
      throw new CliUsageError(
        `Unknown command "${command}". Commands: web, api-server, run, eval, eval_set, conformance, help.`,
      );
  }
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

/** `--session-lock` (AGENTKIT_SESSION_LOCK) and `--session-lock-wait-ms` (AGENTKIT_SESSION_LOCK_WAIT_MS). */
function parseSessionLock(
  values: FlagValues,
  env: NodeJS.ProcessEnv,
): { sessionLock?: "store" | "process"; sessionLockWaitMs?: number } {
  const mode = str(values, "session-lock") ?? (env.AGENTKIT_SESSION_LOCK || undefined);
  if (mode !== undefined && mode !== "store" && mode !== "process")
    throw new CliUsageError(`--session-lock must be store or process, got "${mode}".`);
  const wait = str(values, "session-lock-wait-ms") ?? (env.AGENTKIT_SESSION_LOCK_WAIT_MS || undefined);
  if (wait !== undefined && (!/^\d+$/.test(wait) || Number(wait) < 1 || !Number.isSafeInteger(Number(wait))))
    throw new CliUsageError(`--session-lock-wait-ms must be a positive integer, got "${wait}".`);
  return {
    ...(mode !== undefined ? { sessionLock: mode } : {}),
    ...(wait !== undefined ? { sessionLockWaitMs: Number(wait) } : {}),
  };
}

/** `--idle-memory-ms` (AGENTKIT_IDLE_MEMORY_MS): a non-negative integer, 0 for off. */
function parseIdleMemory(values: FlagValues, env: NodeJS.ProcessEnv): { idleMemoryMs?: number } {
  const raw = str(values, "idle-memory-ms") ?? (env.AGENTKIT_IDLE_MEMORY_MS || undefined);
  if (raw === undefined) return {};
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw)))
    throw new CliUsageError(`--idle-memory-ms must be a non-negative integer (0 turns it off), got "${raw}".`);
  return { idleMemoryMs: Number(raw) };
}

const AUTH_MODES = ["none", "api-key", "jwt"] as const;
const API_KEY_FLAGS = ["api-keys-file"];
const JWT_FLAGS = ["jwt-jwks-url", "jwt-public-key-file", "jwt-issuer", "jwt-audience", "jwt-user-claim"];

/** `--auth none|api-key|jwt` (AGENTKIT_AUTH) and its mode's flags; undefined for none. */
function parseAuth(values: FlagValues, env: NodeJS.ProcessEnv): ServeAuth | undefined {
  const raw = str(values, "auth") ?? (env.AGENTKIT_AUTH || "none");
  const mode = raw.toLowerCase() as (typeof AUTH_MODES)[number];
  if (!AUTH_MODES.includes(mode))
    throw new CliUsageError(`--auth must be one of ${AUTH_MODES.join(", ")}, got "${raw}".`);
  const misplaced = [...(mode === "api-key" ? [] : API_KEY_FLAGS), ...(mode === "jwt" ? [] : JWT_FLAGS)].find(
    (flag) => values[flag] !== undefined,
  );
  if (misplaced)
    throw new CliUsageError(
      `--${misplaced} applies to --auth ${misplaced.startsWith("jwt") ? "jwt" : "api-key"} only.`,
    );
  const pick = (flag: string, envName: string) => str(values, flag) ?? (env[envName] || undefined);
  if (mode === "api-key") {
    const keysFile = pick("api-keys-file", "AGENTKIT_API_KEYS_FILE");
    const keysText = env.AGENTKIT_API_KEYS || undefined;
    if (keysFile === undefined && keysText === undefined)
      throw new CliUsageError(
        "--auth api-key needs the keys: --api-keys-file <file> (or AGENTKIT_API_KEYS_FILE), or AGENTKIT_API_KEYS, " +
          "with one `<key> <userId> [scope…]` entry per line.",
      );
    // A file named on the command line wins over keys left in the environment.
    return keysFile !== undefined ? { mode, keysFile } : { mode, keysText: keysText! };
  }
  if (mode === "jwt") {
    const jwksUrl = pick("jwt-jwks-url", "AGENTKIT_JWT_JWKS_URL");
    const publicKeyFile = pick("jwt-public-key-file", "AGENTKIT_JWT_PUBLIC_KEY_FILE");
    if ((jwksUrl === undefined) === (publicKeyFile === undefined))
      throw new CliUsageError("--auth jwt needs exactly one of --jwt-jwks-url <url> and --jwt-public-key-file <pem>.");
    const issuer = splitList([pick("jwt-issuer", "AGENTKIT_JWT_ISSUER") ?? ""]);
    const audience = splitList([pick("jwt-audience", "AGENTKIT_JWT_AUDIENCE") ?? ""]);
    if (issuer.length === 0) throw new CliUsageError("--auth jwt needs --jwt-issuer <iss> (the tokens' issuer).");
    if (audience.length === 0)
      throw new CliUsageError("--auth jwt needs --jwt-audience <aud> (this server's audience in the tokens).");
    return {
      mode,
      ...(jwksUrl !== undefined ? { jwksUrl } : { publicKeyFile: publicKeyFile! }),
      issuer,
      audience,
      userClaim: pick("jwt-user-claim", "AGENTKIT_JWT_USER_CLAIM") ?? "sub",
    };
  }
  return undefined;
}

function isTrue(value: string | undefined): boolean {
  return value === "1" || value?.toLowerCase() === "true";
}

function isFalse(value: string | undefined): boolean {
  return value === "0" || value?.toLowerCase() === "false";
}

/** `--log-format text|json` (AGENTKIT_LOG_FORMAT). */
function parseLogFormat(values: FlagValues, env: NodeJS.ProcessEnv): { logFormat?: LogFormat } {
  const raw = str(values, "log-format") ?? (env.AGENTKIT_LOG_FORMAT || undefined);
  if (raw === undefined) return {};
  const format = raw.toLowerCase();
  if (format !== "text" && format !== "json")
    throw new CliUsageError(`--log-format must be text or json, got "${raw}".`);
  return { logFormat: format };
}

/**
 * `--otel` (AGENTKIT_OTEL=1) turns the export on; `--otel-capture-content` (or the GenAI
 * convention's OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true) adds content to spans.
 * Endpoints and headers stay in the OTEL_* variables, read when the export starts.
 */
function parseOtel(values: FlagValues, env: NodeJS.ProcessEnv): { otel?: { captureContent: boolean } } {
  const on = values.otel === true || isTrue(env.AGENTKIT_OTEL);
  const captureContent =
    values["otel-capture-content"] === true || isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT);
  if (values["otel-capture-content"] === true && !on)
    throw new CliUsageError("--otel-capture-content applies to --otel only (OpenTelemetry export is off).");
  // The SDK's own switch: a deployment that disabled OpenTelemetry keeps it off.
  if (!on || isTrue(env.OTEL_SDK_DISABLED)) return {};
  return { otel: { captureContent } };
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
