import { describe, expect, it } from "@jest/globals";
import {
  AgentKitError,
  ConfigurationError,
  InvalidJsonError,
  LlmCallsLimitExceededError,
  ModelError,
  PluginError,
  RunAbortedError,
  SessionAlreadyExistsError,
  SessionError,
  SessionNotFoundError,
  StaleSessionError,
  ToolError,
} from "../src/index.js";
import { ScriptError } from "../src/testing/index.js";

describe("error classes", () => {
  const cause = new Error("root cause");
  const cases: [AgentKitError, string, string][] = [
    [new AgentKitError("CUSTOM", "custom", { cause }), "CUSTOM", "AgentKitError"],
    [new ConfigurationError("bad config", { cause }), "CONFIGURATION_ERROR", "ConfigurationError"],
    [new SessionError("session broke", { cause }), "SESSION_ERROR", "SessionError"],
    [
      new SessionNotFoundError({ appName: "app", userId: "u", sessionId: "s" }, { cause }),
      "SESSION_NOT_FOUND",
      "SessionNotFoundError",
    ],
    [new SessionAlreadyExistsError("s", { cause }), "SESSION_ALREADY_EXISTS", "SessionAlreadyExistsError"],
    [new StaleSessionError("s", "3 events appended", { cause }), "STALE_SESSION", "StaleSessionError"],
    [new LlmCallsLimitExceededError(5, { cause }), "LLM_CALLS_LIMIT_EXCEEDED", "LlmCallsLimitExceededError"],
    [new RunAbortedError({ cause }), "RUN_ABORTED", "RunAbortedError"],
    [new ModelError("model failed", { cause }), "MODEL_ERROR", "ModelError"],
    [new ToolError("tool failed", { cause }), "TOOL_ERROR", "ToolError"],
    [new PluginError("p", "beforeRunCallback", cause), "PLUGIN_ERROR", "PluginError"],
    [new InvalidJsonError("bad json", { cause }), "INVALID_JSON", "InvalidJsonError"],
  ];

  it.each(cases)("%p has its code, name and cause and is an AgentKitError", (error, code, name) => {
    expect(error).toBeInstanceOf(AgentKitError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.cause).toBe(cause);
    expect(error.message.length).toBeGreaterThan(0);
    expect(String(error)).toContain(name);
  });

  it("omits cause when none is given", () => {
    const error = new ConfigurationError("x");
    expect("cause" in error).toBe(false);
    expect(new ScriptError("empty").cause).toBeUndefined();
  });

  it("keeps the session error family under SessionError", () => {
    for (const error of [
      new SessionNotFoundError({ appName: "a", userId: "u", sessionId: "s" }),
      new SessionAlreadyExistsError("s"),
      new StaleSessionError("s", "x"),
    ]) {
      expect(error).toBeInstanceOf(SessionError);
    }
    expect(new ConfigurationError("x")).not.toBeInstanceOf(SessionError);
  });

  it("carries the details callers need, and messages say what to do", () => {
    const notFound = new SessionNotFoundError({ appName: "app", userId: "ada", sessionId: "s-9" });
    expect([notFound.appName, notFound.userId, notFound.sessionId]).toEqual(["app", "ada", "s-9"]);
    expect(notFound.message).toMatch(/s-9.*Create it first/);
    const limit = new LlmCallsLimitExceededError(7);
    expect(limit.limit).toBe(7);
    expect(limit.message).toMatch(/7.*maxLlmCalls/);
    expect(new StaleSessionError("s", "moved on").message).toMatch(/moved on.*Reload the session and retry/);
    expect(new ModelError("rate limited", { code: "RATE_LIMITED" }).code).toBe("RATE_LIMITED");
    expect(new ToolError("x", { code: "TOOL_TIMEOUT" }).code).toBe("TOOL_TIMEOUT");
  });
});
