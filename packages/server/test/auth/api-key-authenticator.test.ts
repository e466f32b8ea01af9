// Static API keys: parsing (comments, `;`, line numbers in errors that never show a key),
// and over HTTP: right, wrong, missing and malformed credentials.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { parseApiKeyText } from "../../src/auth/api-key-authenticator.js";
import { apiKeyAuthenticator } from "../../src/index.js";
import { bearer, KEYS, startAuthServer, type AuthTestServer } from "./auth-server.js";

const SECRET = "s3cret-key-that-must-not-leak";

/** The message of what `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("expected a throw");
}

describe("API key entries", () => {
  it("reads `<key> <userId> [scope…]` lines, skipping comments and blank lines; `;` separates entries when asked", () => {
    const text = `# comment\n\n  ${SECRET} alice read write  \n${KEYS.bob} bob; ${KEYS.admin} root admin`;
    expect(
      parseApiKeyText(text, "AGENTKIT_API_KEYS", true).map((e) => [e.entry.userId, e.entry.scopes, e.where]),
    ).toEqual([
      ["alice", ["read", "write"], "AGENTKIT_API_KEYS line 3"],
      ["bob", [], "AGENTKIT_API_KEYS line 4 entry 1"],
      ["root", ["admin"], "AGENTKIT_API_KEYS line 4 entry 2"],
    ]);
    // In a file a `;` is part of the key.
    expect(parseApiKeyText(`${SECRET};x alice`, "keys.txt", false)[0]!.entry.key).toBe(`${SECRET};x`);
  });

  it("names the bad line and never shows the key", () => {
    const cases: [string, RegExp][] = [
      [
        `# keys\n${KEYS.bob} bob\n${SECRET}\n`,
        /API keys: AGENTKIT_API_KEYS line 3: expected "<key> <userId> \[scope…\]" \(no user id\)/,
      ],
      [`${KEYS.bob} bob\nshort-key alice`, /line 2: the key is shorter than 16 characters/],
      [`${SECRET} alice\n${KEYS.bob} bob\n${SECRET} carol`, /line 3: the same key as AGENTKIT_API_KEYS line 1/],
      [`${SECRET}\u00e9 alice`, /line 1: the key must be printable ASCII/],
      ["# nothing here\n", /no entries/],
    ];
    for (const [text, expected] of cases) {
      const message = thrown(() => apiKeyAuthenticator({ text, source: "AGENTKIT_API_KEYS" }));
      expect(message).toMatch(expected);
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain(KEYS.bob);
    }
  });

  it("reads a file, and says which file cannot be read", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agentkit-keys-"));
    try {
      const file = join(dir, "keys.txt");
      await writeFile(file, `${SECRET} alice\nbad-line-without-user\n`);
      expect(thrown(() => apiKeyAuthenticator({ file }))).toBe(
        `API keys: ${file} line 2: expected "<key> <userId> [scope…]" (no user id).`,
      );
      await writeFile(file, `${SECRET} alice admin\n`);
      const authenticate = apiKeyAuthenticator({ file });
      // Node gives header names in lower case.
      const req = { headers: { authorization: `Bearer ${SECRET}` } } as never;
      expect(await authenticate(req)).toEqual({
        userId: "alice",
        scopes: ["admin"],
        claims: { auth: "api-key", entry: `${file} line 1` },
      });
      expect(thrown(() => apiKeyAuthenticator({ file: join(dir, "missing.txt") }))).toMatch(
        /cannot read .*missing\.txt/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("API keys over HTTP", () => {
  let t: AuthTestServer;
  beforeAll(async () => {
    t = await startAuthServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${t.url}${path}`, { headers });

  it("the right key is the principal: its own sessions are served", async () => {
    const res = await get("/apps/A/users/alice/sessions", bearer(KEYS.alice));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    // The scheme is case-insensitive (RFC 7235).
    expect((await get("/list-apps", { Authorization: `bearer ${KEYS.bob}` })).status).toBe(200);
  });

  it("a missing key is a 401 with a plain challenge", async () => {
    const res = await get("/list-apps");
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="agentkit"');
    expect(await res.json()).toEqual({
      error: "Authentication required: send Authorization: Bearer <token>.",
      detail: "Authentication required: send Authorization: Bearer <token>.",
      code: "UNAUTHENTICATED",
    });
  });

  it("a wrong key is a 401 invalid_token that says no more than that", async () => {
    const res = await get("/list-apps", bearer(SECRET));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('Bearer realm="agentkit", error="invalid_token"');
    expect(await res.json()).toEqual({
      error: "Invalid credentials.",
      detail: "Invalid credentials.",
      code: "UNAUTHENTICATED",
    });
    // A prefix or an extension of a right key is just as wrong.
    expect((await get("/list-apps", bearer(KEYS.alice.slice(0, -1)))).status).toBe(401);
    expect((await get("/list-apps", bearer(`${KEYS.alice}x`))).status).toBe(401);
  });

  it("another scheme or a bare token is a 401 invalid_request", async () => {
    for (const authorization of [
      `Basic ${Buffer.from("alice:pw").toString("base64")}`,
      KEYS.alice,
      "Bearer",
      `Bearer a b`,
    ]) {
      const res = await get("/list-apps", { Authorization: authorization });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="agentkit", error="invalid_request"');
    }
  });

  it("public routes need no key", async () => {
    expect((await get("/health")).status).toBe(200);
    expect((await get("/dev-ui/")).status).toBe(200);
  });

  it("logs why at debug level, never the key", () => {
    const text = t.logger.lines.join("\n");
    expect(text).toContain("debug Unauthenticated: GET /list-apps: invalid (no API key matches)");
    expect(text).toContain("debug Unauthenticated: GET /list-apps: missing");
    expect(text).not.toContain(SECRET);
    for (const key of Object.values(KEYS)) expect(text).not.toContain(key.slice(0, -1));
  });
});
