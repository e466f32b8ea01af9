import { describe, expect, it } from "@jest/globals";
import { AgentKitError, ConfigurationError, SessionAlreadyExistsError, SessionNotFoundError } from "@agentkit/core";
import { AppNotFoundError, HttpRequestError, errorBody, statusForError } from "../src/index.js";

describe("statusForError / errorBody", () => {
  it("maps the typed errors to their statuses", () => {
    expect(statusForError(new AppNotFoundError("nope"))).toBe(404);
    expect(statusForError(new SessionNotFoundError({ appName: "a", userId: "u", sessionId: "s" }))).toBe(404);
    expect(statusForError(new SessionAlreadyExistsError("s1"))).toBe(409);
    expect(statusForError(new HttpRequestError(422, "BAD", "bad"))).toBe(422);
    expect(statusForError(new Error("boom"))).toBe(500);
    expect(statusForError("not an error")).toBe(500);
  });

  it("keeps client-error messages and hides unexpected ones", () => {
    expect(errorBody(new AppNotFoundError("nope"))).toEqual({
      error: "App not found: nope",
      detail: "App not found: nope",
      code: "APP_NOT_FOUND",
    });
    const hidden = errorBody(new Error("secret at /etc/passwd"));
    expect(hidden.error).toBe("Internal server error");
    expect(JSON.stringify(hidden)).not.toContain("secret");
    expect(errorBody(new AgentKitError("X", "internal detail")).error).toBe("Internal server error");
    expect(errorBody(new ConfigurationError("agents/a/root_agent.yaml: model is required")).detail).toContain(
      "root_agent.yaml",
    );
  });

  it("with exposeMessages, unexpected errors keep their message (with the error's name), never a stack", () => {
    const error = new TypeError("cannot read x of undefined");
    expect(errorBody(error, true)).toEqual({
      error: "TypeError: cannot read x of undefined",
      detail: "TypeError: cannot read x of undefined",
      code: "INTERNAL",
    });
    expect(errorBody(new AgentKitError("X_FAILED", "internal detail"), true)).toEqual({
      error: "internal detail",
      detail: "internal detail",
      code: "X_FAILED",
    });
    expect(errorBody("a thrown string", true).error).toBe("Internal server error");
  });
});
