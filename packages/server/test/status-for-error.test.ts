import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "@jest/globals";
import { AgentKitError, ConfigurationError, SessionAlreadyExistsError, SessionNotFoundError } from "@agentkit/core";
import { statusForErrorCode } from "../src/errors/status-for-error.js";
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

  it("with exposeMessages, absolute paths in a message are cut to their file name", () => {
    const error = new Error("ENOENT: no such file or directory, open '/var/lib/agentkit/.agentkit/sessions.db'");
    expect(errorBody(error, true).error).toBe("Error: ENOENT: no such file or directory, open '…/sessions.db'");
  });
});

describe("every error code has a status", () => {
  // Sources of the packages whose errors reach HTTP clients through this server.
  const root = fileURLToPath(new URL("../../", import.meta.url));
  const dirs = ["core/src", "sessions/src", "artifacts/src", "server/src"].map((d) => join(root, d));
  const patterns = [
    /\bsuper\(\s*"([A-Z][A-Z0-9_]+)"/g, // class XError extends AgentKitError { super("CODE", …) }
    /\bnew [A-Za-z]*Error\(\s*"([A-Z][A-Z0-9_]+)"/g, // new AgentKitError("CODE", …), new SessionStoreError("CODE", …)
    /\bcode:\s*"([A-Z][A-Z0-9_]+)"/g, // new SessionError(msg, { code: "CODE" }), JSON bodies
  ];
  // Code tables (`ArtifactStoreErrorCode`, `SessionStoreErrorCode`) in error modules.
  const tablePatterns = [/^\s+[A-Z_]+: "([A-Z][A-Z0-9_]+)",?$/gm, /\|\s*"([A-Z][A-Z0-9_]+)"/g];

  function codesIn(dir: string): Map<string, string> {
    const found = new Map<string, string>();
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
      const file = join(entry.parentPath, entry.name);
      const text = readFileSync(file, "utf8");
      const all = [...patterns, ...(/error/i.test(entry.name) ? tablePatterns : [])];
      for (const pattern of all) for (const m of text.matchAll(pattern)) found.set(m[1]!, relative(root, file));
    }
    return found;
  }

  it("finds the codes of every error family", () => {
    const codes = new Map(dirs.flatMap((d) => [...codesIn(d)]));
    // The scan itself works: one code of each family and of each way of writing it.
    for (const code of [
      "SESSION_NOT_FOUND",
      "INVALID_SESSION_KEY",
      "SESSION_STORE_CORRUPT",
      "SESSION_STORE_TOO_NEW",
      "MANAGED_SESSION_TIMEOUT",
      "ARTIFACT_STORE_LIMIT",
      "INVALID_ARTIFACT_NAME",
      "RUN_ABORTED",
      "APP_NOT_FOUND",
      "INVALID_LIVE_REQUEST",
    ]) {
      expect(codes.has(code)).toBe(true);
    }
  });

  it("maps each code found in core, sessions, artifacts and server to a status", () => {
    const unmapped = dirs
      .flatMap((d) => [...codesIn(d)])
      .filter(([code]) => statusForErrorCode(code) === undefined)
      .map(([code, file]) => `${code} (${file})`);
    expect(unmapped).toEqual([]);
  });

  it("answers client mistakes with 4xx and keeps Object.prototype names out of the table", () => {
    for (const code of [
      "INVALID_SESSION_KEY",
      "INVALID_ARTIFACT_NAME",
      "INVALID_ARTIFACT_SCOPE",
      "ARTIFACT_STORE_LIMIT",
    ]) {
      expect(statusForError(new AgentKitError(code, "x"))).toBeGreaterThanOrEqual(400);
      expect(statusForError(new AgentKitError(code, "x"))).toBeLessThan(500);
    }
    expect(statusForErrorCode("constructor")).toBeUndefined();
    expect(statusForError(new AgentKitError("__proto__", "x"))).toBe(500);
  });
});
