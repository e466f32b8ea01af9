import { SeededRandom } from "@agentkit/test-support/seeded-random";
import { describe, expect, it } from "@jest/globals";
import {
  InMemoryArtifactService,
  InMemorySessionService,
  InvalidArtifactNameError,
  InvalidSessionKeyError,
  SessionError,
} from "../src/index.js";
import {
  MAX_ARTIFACT_FILENAME_BYTES,
  MAX_SESSION_KEY_BYTES,
  sessionKeyProblem,
  validateArtifactFilename,
  validateSessionKey,
} from "../src/internal.js";
import { nameProblem } from "../src/sessions/session-key-validation.js";

describe("session key rules", () => {
  it("accept what ADK clients send: UUIDs, eval ids, e-mail user ids, slashes, non-ASCII, prototype names", () => {
    for (const id of [
      "8c3f7a52-2f0e-4a7a-9b8e-3f4c2d1e0a9b",
      "___eval___session___8c3f7a52-2f0e-4a7a-9b8e-3f4c2d1e0a9b",
      "first.last+tag@example.com",
      "projects/p/locations/us-central1/reasoningEngines/123",
      "Zoë 東京 🙂",
      "...",
      "%2e%2e",
      "__proto__",
      "constructor",
      "hasOwnProperty",
      "x".repeat(MAX_SESSION_KEY_BYTES),
    ]) {
      expect(sessionKeyProblem(id)).toBeUndefined();
    }
  });

  it("refuse empty, too long, control characters, lone surrogates, absolute paths and dot segments", () => {
    const cases: [unknown, RegExp][] = [
      ["", /empty/],
      [42, /must be a string/],
      [null, /must be a string, got null/],
      ["x".repeat(MAX_SESSION_KEY_BYTES + 1), /129 bytes of UTF-8; at most 128/],
      ["東".repeat(43), /129 bytes/],
      ["a\u0000b", /control character/],
      ["a\nb", /control character/],
      ["a\u009fb", /control character/],
      ["\ud800", /lone UTF-16 surrogate/],
      ["a\udc00b", /lone UTF-16 surrogate/],
      ["/root", /absolute path/],
      ["C:\\x", /absolute path/],
      [".", /"\." or "\.\." segment/],
      ["..", /segment/],
      ["../other", /segment/],
      ["a/./b", /segment/],
    ];
    for (const [value, problem] of cases) expect(sessionKeyProblem(value)).toMatch(problem);
  });

  it("the quick check of plain ASCII keys agrees with the full rules", () => {
    // Dots, separators-free ASCII and lengths around the limit: where a shortcut could go wrong.
    const alphabet = ["a", "Z", "0", "_", "-", ".", ":", "@", "+", "/", "\\", " "];
    const rng = new SeededRandom(7);
    const samples = [".", "..", "...", ".a", "a.", "x".repeat(128), "x".repeat(129), "a/..", "..\\b"];
    for (let i = 0; i < 3000; i++) {
      const length = 1 + rng.int(rng.chance(0.1) ? 130 : 6);
      samples.push(Array.from({ length }, () => rng.pick(alphabet)).join(""));
    }
    for (const value of samples) expect(sessionKeyProblem(value)).toBe(fullRules(value));
  });

  it("a value accepted before passes again, and nothing else does: the repeat check agrees with the full rules", () => {
    // validateSessionKey remembers the last value accepted per field; alternating valid and
    // invalid values in every field must give the full rules' verdict each time.
    const values = ["a", "..", "..", "a", "", "", "b/c", "b/c", "\u0000", "\u0000", "x".repeat(129), "a", "/abs", "é"];
    for (const field of ["appName", "userId", "sessionId"] as const) {
      for (const value of values) {
        const key = { appName: "app", userId: "u", sessionId: "s", [field]: value };
        const verdict = value === "" ? "empty" : fullRules(value);
        if (verdict === undefined) expect(() => validateSessionKey(key)).not.toThrow();
        else expect(() => validateSessionKey(key)).toThrow(InvalidSessionKeyError);
      }
    }
    expect(() => validateSessionKey({ appName: "app", userId: "u", sessionId: 7 })).toThrow(InvalidSessionKeyError);
  });

  it("throw InvalidSessionKeyError (a SessionError, INVALID_SESSION_KEY) naming the field, with a bounded preview", () => {
    const long = `${"é".repeat(5000)}`;
    let caught: unknown;
    try {
      validateSessionKey({ appName: "a", userId: "u", sessionId: long });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidSessionKeyError);
    expect(caught).toBeInstanceOf(SessionError);
    expect(caught).toMatchObject({ code: "INVALID_SESSION_KEY", field: "sessionId" });
    expect((caught as Error).message.length).toBeLessThan(250);
    expect(() => validateSessionKey({ appName: "a", userId: "\ud800" })).toThrow(/Invalid userId "\uFFFD"/);
  });

  it("every in-memory service applies them, and prototype names work as ordinary ids", async () => {
    const sessions = new InMemorySessionService();
    for (const bad of ["", "..", "a\u0000", "x".repeat(300)]) {
      await expect(
        sessions.createSession({ appName: "app", userId: "u", sessionId: bad || "\u0000" }),
      ).rejects.toMatchObject({
        code: "INVALID_SESSION_KEY",
      });
      await expect(sessions.getSession({ appName: "app", userId: bad, sessionId: "s" })).rejects.toBeInstanceOf(
        InvalidSessionKeyError,
      );
      await expect(sessions.listSessions({ appName: bad })).rejects.toBeInstanceOf(InvalidSessionKeyError);
      await expect(sessions.deleteSession({ appName: "app", userId: "u", sessionId: bad })).rejects.toBeInstanceOf(
        InvalidSessionKeyError,
      );
    }
    for (const id of ["__proto__", "constructor", "hasOwnProperty", "toString"]) {
      const created = await sessions.createSession({ appName: id, userId: id, sessionId: id, state: { k: id } });
      expect(created.id).toBe(id);
      expect((await sessions.getSession({ appName: id, userId: id, sessionId: id }))?.state).toEqual({ k: id });
      expect((await sessions.listSessions({ appName: id, userId: id })).sessions.map((s) => s.id)).toEqual([id]);
    }
    expect(await sessions.getSession({ appName: "app", userId: "u", sessionId: "__proto__" })).toBeUndefined();

    const artifacts = new InMemoryArtifactService();
    for (const id of ["__proto__", "constructor"]) {
      const scope = { appName: id, userId: id, sessionId: id };
      expect(await artifacts.saveArtifact({ ...scope, filename: id, artifact: { text: id } })).toBe(0);
      expect(await artifacts.loadArtifact({ ...scope, filename: id })).toEqual({ text: id });
      expect(await artifacts.listArtifactKeys(scope)).toEqual([id]);
    }
    await expect(
      artifacts.saveArtifact({
        appName: "a",
        userId: "u",
        sessionId: "x".repeat(300),
        filename: "f",
        artifact: { text: "x" },
      }),
    ).rejects.toBeInstanceOf(InvalidArtifactNameError);
    await expect(artifacts.listArtifactKeys({ appName: "a", userId: "\u0000" })).rejects.toMatchObject({
      code: "INVALID_ARTIFACT_NAME",
    });
  });
});

describe("artifact filename rules", () => {
  it("allow up to 255 bytes without the user: prefix, slashes inside and dotted names", () => {
    for (const name of [
      "n".repeat(MAX_ARTIFACT_FILENAME_BYTES),
      `user:${"n".repeat(MAX_ARTIFACT_FILENAME_BYTES)}`,
      "a/b.txt",
      ".hidden",
      "notes..txt",
      "...",
      "screenshot 2024-01-01 at 10.00.00.png",
    ]) {
      expect(() => validateArtifactFilename(name)).not.toThrow();
    }
  });

  it("refuse empty names, long names, control characters, lone surrogates, absolute paths and dot segments", () => {
    for (const name of [
      "",
      "user:",
      "n".repeat(MAX_ARTIFACT_FILENAME_BYTES + 1),
      "東".repeat(86),
      "nul\u0000.txt",
      "tab\there",
      "\udfff.txt",
      "/etc/passwd",
      "user:/abs",
      "\\\\server\\share",
      "C:/x",
      ".",
      "./x",
      "a/../b",
      "dir\\..\\x",
      42,
    ]) {
      expect(() => validateArtifactFilename(name)).toThrow(InvalidArtifactNameError);
    }
  });
});

/** The rules without the quick path: what `sessionKeyProblem` answered before it had one. */
function fullRules(value: string): string | undefined {
  return nameProblem(value, MAX_SESSION_KEY_BYTES);
}
