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
  /** Resource limits given as flags (`--headers-timeout-ms`, `--live-max-sockets`, …); defaults for the rest. */
  limits?: ServerLimits;
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
  "allowed-hosts": { type: "string", multiple: true },
  auth: { type: "string" },
  "api-keys-file": { type: "string" },
  "jwt-jwks-url": { type: "string" },
  "jwt-public-key-file": { type: "string" },
  "jwt-issuer": { type: "string" },
  "jwt-audience": { type: "string" },
  "jwt-user-claim": { type: "string" },
  "insecure-no-auth": { type: "boolean" },
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
          ...(allowedHosts.length > 0 ? { allowedHosts } : {}),
          ...(auth ? { auth } : {}),
          ...(insecureNoAuth ? { insecureNoAuth } : {}),
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
        "allowed-hosts": _ah,
        auth: _auth,
        "api-keys-file": _k,
        "jwt-jwks-url": _j1,
        "jwt-public-key-file": _j2,
        "jwt-issuer": _j3,
        "jwt-audience": _j4,
        "jwt-user-claim": _j5,
        "insecure-no-auth": _i,
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
