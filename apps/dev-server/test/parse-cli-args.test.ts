import { describe, expect, it } from "@jest/globals";
import { CliUsageError } from "../src/cli-usage-error.js";
import { parseCliArgs } from "../src/parse-cli-args.js";

describe("parseCliArgs", () => {
  it("defaults web to 127.0.0.1:8000, reload on, persisted services (no URIs)", () => {
    expect(parseCliArgs(["web", "examples/agents"], {})).toEqual({
      command: "web",
      options: {
        agentsDir: "examples/agents",
        host: "127.0.0.1",
        port: 8000,
        reload: true,
        allowOrigins: [],
        logLevel: "info",
        a2a: false,
      },
    });
  });

  it("api-server reloads only when asked", () => {
    const cli = parseCliArgs(["api-server"], {});
    expect(cli.command === "api-server" && cli.options.reload).toBe(false);
    const on = parseCliArgs(["api-server", "--reload"], {});
    expect(on.command === "api-server" && on.options.reload).toBe(true);
    const off = parseCliArgs(["web", "--no-reload"], {});
    expect(off.command === "web" && off.options.reload).toBe(false);
  });

  it("warms up before listening unless --no-warm-up or AGENTKIT_WARM_UP=0", () => {
    const on = parseCliArgs(["api-server"], {});
    expect(on.command === "api-server" && on.options.warmUp).toBeUndefined();
    const off = parseCliArgs(["web", "--no-warm-up"], {});
    expect(off.command === "web" && off.options.warmUp).toBe(false);
    const env = parseCliArgs(["api-server"], { AGENTKIT_WARM_UP: "0" });
    expect(env.command === "api-server" && env.options.warmUp).toBe(false);
    expect(() => parseCliArgs(["run", ".", "--no-warm-up"], {})).toThrow();
  });

  it("reads every flag, lists of origins, and service URIs", () => {
    const cli = parseCliArgs(
      [
        "web",
        "agents",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--allow-origins",
        "http://a.test,http://b.test",
        "--allow-origins",
        "http://c.test",
        "--session-service-uri",
        "sqlite:///tmp/s.db",
        "--artifact-service-uri",
        "file:///tmp/a",
        "--memory-service-uri",
        "memory://",
        "--log-level",
        "DEBUG",
        "--a2a",
      ],
      {},
    );
    expect(cli).toEqual({
      command: "web",
      options: {
        agentsDir: "agents",
        host: "0.0.0.0",
        port: 0,
        reload: true,
        allowOrigins: ["http://a.test", "http://b.test", "http://c.test"],
        sessionServiceUri: "sqlite:///tmp/s.db",
        artifactServiceUri: "file:///tmp/a",
        memoryServiceUri: "memory://",
        logLevel: "debug",
        a2a: true,
      },
    });
  });

  it("falls back to AGENTKIT_* environment variables; flags win", () => {
    const env = {
      AGENTKIT_PORT: "9001",
      AGENTKIT_SESSION_SERVICE_URI: "memory://",
      AGENTKIT_ALLOW_ORIGINS: "http://x.test",
    };
    const cli = parseCliArgs(["web"], env);
    expect(
      cli.command === "web" && [cli.options.port, cli.options.sessionServiceUri, cli.options.allowOrigins],
    ).toEqual([9001, "memory://", ["http://x.test"]]);
    const flag = parseCliArgs(["web", "--port", "1234"], env);
    expect(flag.command === "web" && flag.options.port).toBe(1234);
  });

  it("reads the limit flags (sizes, counts, milliseconds) and their AGENTKIT_* variables; run has none", () => {
    const cli = parseCliArgs(
      [
        "api-server",
        "--body-limit",
        "8mb",
        "--body-bytes-in-flight",
        "33554432",
        "--max-json-depth",
        "32",
        "--headers-timeout-ms",
        "5000",
        "--body-timeout-ms",
        "0",
        "--max-connections-per-client",
        "0",
        "--runs-per-user-per-minute",
        "30",
        "--live-max-sockets",
        "10",
        "--live-max-frame-bytes",
        "64kb",
        "--sse-write-timeout-ms",
        "10000",
      ],
      {
        AGENTKIT_LIVE_PING_INTERVAL_MS: "0",
        AGENTKIT_KEEP_ALIVE_TIMEOUT_MS: "2000",
        AGENTKIT_LIVE_MAX_QUEUED_FRAMES: "16",
        AGENTKIT_MAX_JSON_DEPTH: "99",
        AGENTKIT_RUNS_PER_APP_PER_MINUTE: "600",
      },
    );
    expect(cli.command === "api-server" && [cli.options.bodyLimit, cli.options.limits]).toEqual([
      8 * 1024 * 1024,
      {
        maxBodyBytesInFlight: 33554432,
        maxJsonDepth: 32,
        headersTimeoutMs: 5000,
        bodyTimeoutMs: 0,
        keepAliveTimeoutMs: 2000,
        maxConnectionsPerClient: 0,
        runsPerUserPerMinute: 30,
        runsPerAppPerMinute: 600,
        sseWriteTimeoutMs: 10000,
        live: { maxSockets: 10, maxFrameBytes: 65536, maxQueuedFrames: 16, pingIntervalMs: 0 },
      },
    ]);
    expect(() => parseCliArgs(["web", "--headers-timeout-ms", "soon"], {})).toThrow(
      /--headers-timeout-ms must be a non-negative integer, got "soon"/,
    );
    expect(() => parseCliArgs(["web", "--body-limit", "lots"], {})).toThrow(/--body-limit must be a positive number/);
    expect(() => parseCliArgs(["web"], { AGENTKIT_LIVE_MAX_SOCKETS: "-1" })).toThrow(CliUsageError);
    expect(() => parseCliArgs(["run", "agent", "--body-limit", "1mb"], {})).toThrow(CliUsageError);
  });

  it("--session-lock store|process and --session-lock-wait-ms (or their AGENTKIT_* variables); run has neither", () => {
    const cli = parseCliArgs(["api-server", "--session-lock", "process"], { AGENTKIT_SESSION_LOCK_WAIT_MS: "5000" });
    expect(cli.command === "api-server" && [cli.options.sessionLock, cli.options.sessionLockWaitMs]).toEqual([
      "process",
      5000,
    ]);
    const defaults = parseCliArgs(["api-server"], {});
    expect(defaults.command === "api-server" && "sessionLock" in defaults.options).toBe(false);
    expect(() => parseCliArgs(["web", "--session-lock", "cluster"], {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(["web", "--session-lock-wait-ms", "0"], {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(["run", "agent", "--session-lock", "store"], {})).toThrow(CliUsageError);
  });

  it("--idle-memory-ms (or AGENTKIT_IDLE_MEMORY_MS): milliseconds of quiet before the memory reduction, 0 for off", () => {
    const cli = parseCliArgs(["api-server", "--idle-memory-ms", "60000"], {});
    expect(cli.command === "api-server" && cli.options.idleMemoryMs).toBe(60000);
    const off = parseCliArgs(["web"], { AGENTKIT_IDLE_MEMORY_MS: "0" });
    expect(off.command === "web" && off.options.idleMemoryMs).toBe(0);
    const defaults = parseCliArgs(["api-server"], {});
    expect(defaults.command === "api-server" && "idleMemoryMs" in defaults.options).toBe(false);
    expect(() => parseCliArgs(["web", "--idle-memory-ms", "soon"], {})).toThrow(
      /--idle-memory-ms must be a non-negative integer/,
    );
    expect(() => parseCliArgs(["web", "--idle-memory-ms", "-1"], {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(["run", "agent", "--idle-memory-ms", "10"], {})).toThrow(CliUsageError);
  });

  it("--dev-ui-dir (or AGENTKIT_DEV_UI_DIR) picks another dev UI for web only", () => {
    const cli = parseCliArgs(["web", "agents", "--dev-ui-dir", "/ui"]);
    expect(cli.command === "web" && cli.options.devUiDir).toBe("/ui");
    const fromEnv = parseCliArgs(["web"], { AGENTKIT_DEV_UI_DIR: "/env-ui" });
    expect(fromEnv.command === "web" && fromEnv.options.devUiDir).toBe("/env-ui");
    expect(() => parseCliArgs(["api-server", "--dev-ui-dir", "/ui"])).toThrow(
      /--dev-ui-dir applies to agentkit web only/,
    );
    expect(() => parseCliArgs(["run", "agent", "--dev-ui-dir", "/ui"])).toThrow(CliUsageError);
  });

  it("parses run, help and version", () => {
    expect(parseCliArgs(["run", "agents/a"], {})).toEqual({ command: "run", agentDir: "agents/a", logLevel: "warn" });
    expect(parseCliArgs([], {})).toEqual({ command: "help" });
    expect(parseCliArgs(["help", "web"], {})).toEqual({ command: "help", topic: "web" });
    expect(parseCliArgs(["--version"], {})).toEqual({ command: "version" });
  });

  it.each([
    [["serve"], /Unknown command "serve"/],
    [["web", "--port", "80a"], /--port must be an integer/],
    [["web", "--port", "70000"], /--port must be an integer/],
    [["web", "--log-level", "loud"], /--log-level must be one of/],
    [["api-server", "--log-format", "xml"], /--log-format must be text or json/],
    [["api-server", "--otel-capture-content"], /applies to --otel only/],
    [["run", "a", "--otel"], /agentkit run: .*otel/],
    [["web", "--bogus"], /agentkit web: .*bogus/],
    [["web", "a", "b"], /one agents directory/],
    [["web", "--reload", "--no-reload"], /contradict/],
    [["run"], /exactly one agent directory/],
    [["run", "a", "--port", "1"], /agentkit run: .*port/],
  ])("rejects %j with a usage error", (argv, message) => {
    expect(() => parseCliArgs(argv, {})).toThrow(CliUsageError);
    expect(() => parseCliArgs(argv, {})).toThrow(message);
  });

  it("--log-format and --otel, from flags or the environment", () => {
    const serve = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const cli = parseCliArgs(["api-server", ...argv], env);
      if (cli.command !== "api-server") throw new Error("not a server command");
      return cli.options;
    };
    expect(serve([]).logFormat).toBeUndefined();
    expect(serve([]).otel).toBeUndefined();
    expect(serve(["--log-format", "JSON"]).logFormat).toBe("json");
    expect(serve([], { AGENTKIT_LOG_FORMAT: "json" }).logFormat).toBe("json");
    expect(serve(["--otel"]).otel).toEqual({ captureContent: false });
    expect(serve([], { AGENTKIT_OTEL: "1" }).otel).toEqual({ captureContent: false });
    expect(serve(["--otel", "--otel-capture-content"]).otel).toEqual({ captureContent: true });
    expect(serve(["--otel"], { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: "true" }).otel).toEqual({
      captureContent: true,
    });
    // The SDK's own off switch wins; an endpoint alone does not turn export on.
    expect(serve(["--otel"], { OTEL_SDK_DISABLED: "true" }).otel).toBeUndefined();
    expect(serve([], { OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }).otel).toBeUndefined();
  });
});
