// JWT auth against a real JWKS endpoint (node:http on 127.0.0.1:0) with keys jose generates
// and rotates, and against a PEM public key: every kind of bad token is refused with a short
// 401, the reason goes to the debug log only, and an admin-scoped token is admin.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { jwtAuthenticator, type JwtAuthOptions } from "../../src/index.js";
import { startAuthServer, type AuthTestServer } from "./auth-server.js";

const ISSUER = "https://issuer.test";
const AUDIENCE = "agentkit-api";

interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string, alg = "RS256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: "sig" } };
}

/** A JWKS endpoint whose key set the test replaces (rotation), counting fetches. */
class JwksServer {
  keys: JWK[] = [];
  fetches = 0;
  status = 200;
  private server: Server | undefined;
  url = "";

  async start(): Promise<void> {
    this.server = createServer((_req, res) => {
      this.fetches += 1;
      res.writeHead(this.status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(this.status === 200 ? { keys: this.keys } : { error: "down" }));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/.well-known/jwks.json`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

const now = () => Math.floor(Date.now() / 1000);

async function token(
  key: SigningKey,
  claims: JWTPayload = {},
  options: { kid?: string | null; exp?: number | null; alg?: string } = {},
): Promise<string> {
  const header: { alg: string; kid?: string } = { alg: options.alg ?? key.alg };
  if (options.kid !== null) header.kid = options.kid ?? key.kid;
  // The claims given win over the defaults (a wrong iss or aud).
  const jwt = new SignJWT({ sub: "alice", iss: ISSUER, aud: AUDIENCE, ...claims })
    .setProtectedHeader(header)
    .setIssuedAt();
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? now() + 300);
  return jwt.sign(key.privateKey);
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

let jwks: JwksServer;
let k1: SigningKey;
let k2: SigningKey;
let k3: SigningKey;

beforeAll(async () => {
  jwks = new JwksServer();
  await jwks.start();
  [k1, k2, k3] = await Promise.all([signingKey("k1"), signingKey("k2"), signingKey("k3", "ES256")]);
  jwks.keys = [k1.jwk];
});
afterAll(async () => {
  await jwks?.stop();
});

async function serverWith(options: Partial<JwtAuthOptions>): Promise<AuthTestServer> {
  return startAuthServer({
    auth: jwtAuthenticator({ issuer: ISSUER, audience: AUDIENCE, jwksUrl: jwks.url, ...options } as JwtAuthOptions),
  });
}

const status = async (t: AuthTestServer, jwt: string, path = "/apps/A/users/alice/sessions") => {
  const res = await fetch(`${t.url}${path}`, { headers: { Authorization: `Bearer ${jwt}` } });
  return { status: res.status, challenge: res.headers.get("www-authenticate"), body: (await res.json()) as unknown };
};

describe("JWT against a JWKS URL", () => {
  let t: AuthTestServer;
  beforeAll(async () => {
    jwks.keys = [k1.jwk];
    t = await serverWith({ jwksCooldownMs: 0 });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("accepts a valid token: the principal is its sub, scopes from `scope` and `scp`", async () => {
    expect((await status(t, await token(k1))).status).toBe(200);
    // Another user's data is still another user's.
    expect((await status(t, await token(k1), "/apps/A/users/bob/sessions")).status).toBe(403);
    // Admin through `scope` (space-separated) or `scp` (array).
    for (const claims of [{ scope: "read admin" }, { scp: ["admin"] }]) {
      expect((await status(t, await token(k1, claims), "/apps/A/users/bob/sessions")).status).toBe(200);
    }
  });

  it("refuses expired, not-yet-valid, wrong-issuer, wrong-audience and exp-less tokens with a short 401", async () => {
    const cases: [string, Promise<string>, string][] = [
      ["expired", token(k1, {}, { exp: now() - 120 }), "The token has expired."],
      ["not yet valid", token(k1, { nbf: now() + 600 }), "Invalid credentials."],
      ["wrong issuer", token(k1, { iss: "https://evil.test" }), "Invalid credentials."],
      ["wrong audience", token(k1, { aud: "another-api" }), "Invalid credentials."],
      ["no exp", token(k1, {}, { exp: null }), "Invalid credentials."],
    ];
    for (const [name, jwt, detail] of cases) {
      const res = await status(t, await jwt);
      expect([name, res]).toEqual([
        name,
        {
          status: 401,
          challenge: 'Bearer realm="agentkit", error="invalid_token"',
          body: { error: detail, detail, code: "UNAUTHENTICATED" },
        },
      ]);
    }
  });

  it("tolerates clock skew up to clockToleranceSec", async () => {
    expect((await status(t, await token(k1, {}, { exp: now() - 5 }))).status).toBe(200);
    expect((await status(t, await token(k1, { nbf: now() + 5 }))).status).toBe(200);
  });

  it("refuses a wrong signature, `alg: none` and an HS256 token signed with the public key", async () => {
    const forged = await token(k2, {}, { kid: "k1" }); // k2's signature under k1's kid
    expect((await status(t, forged)).status).toBe(401);
    const none = `${b64({ alg: "none", kid: "k1" })}.${b64({ sub: "alice", iss: ISSUER, aud: AUDIENCE, exp: now() + 300 })}.`;
    expect((await status(t, none)).status).toBe(401);
    const publicPem = new TextEncoder().encode(JSON.stringify(k1.jwk));
    const hs = await new SignJWT({ sub: "alice" })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setExpirationTime(now() + 300)
      .sign(publicPem);
    expect((await status(t, hs)).status).toBe(401);
    expect((await status(t, "not.a.jwt")).status).toBe(401);
  });

  it("follows key rotation: an unknown kid refetches the set, a retired key is refused", async () => {
    const before = jwks.fetches;
    jwks.keys = [k2.jwk, k3.jwk];
    expect((await status(t, await token(k2))).status).toBe(200);
    expect((await status(t, await token(k3))).status).toBe(200);
    expect(jwks.fetches).toBe(before + 1);
    expect((await status(t, await token(k1))).status).toBe(401);
    jwks.keys = [k1.jwk];
  });

  it("logs why a token was refused at debug level, never the token", async () => {
    const expired = await token(k1, {}, { exp: now() - 120 });
    await status(t, expired);
    const text = t.logger.lines.join("\n");
    expect(text).toContain(
      "debug Unauthenticated: GET /apps/A/users/alice/sessions: expired (JWT refused: ERR_JWT_EXPIRED",
    );
    expect(text).toMatch(/invalid \(JWT refused: ERR_JWT_CLAIM_VALIDATION_FAILED: unexpected "aud" claim value\)/);
    expect(text).not.toContain(expired);
    expect(text).not.toContain(expired.split(".")[1]!);
  });
});

describe("JWKS refetches are rate-limited", () => {
  it("an unknown kid inside the cooldown does not refetch and is refused", async () => {
    jwks.keys = [k1.jwk];
    const t = await serverWith({ jwksCooldownMs: 600_000 });
    try {
      const before = jwks.fetches;
      expect((await status(t, await token(k1))).status).toBe(200);
      jwks.keys = [k1.jwk, k2.jwk];
      for (let i = 0; i < 5; i++)
        expect((await status(t, await token(k2, {}, { kid: `forged-${i}` }))).status).toBe(401);
      expect((await status(t, await token(k2))).status).toBe(401);
      expect(jwks.fetches).toBe(before + 1);
    } finally {
      await t.close();
      jwks.keys = [k1.jwk];
    }
  });

  it("a JWKS endpoint that fails is a 503, not the client's fault", async () => {
    const t = await serverWith({});
    jwks.status = 500;
    try {
      const res = await status(t, await token(k1));
      expect(res).toMatchObject({ status: 503, body: { code: "AUTHENTICATION_UNAVAILABLE" } });
      expect(t.logger.lines.join("\n")).toContain("warn Cannot check credentials for GET /apps/A/users/alice/sessions");
    } finally {
      jwks.status = 200;
      await t.close();
    }
  });
});

describe("JWT against a PEM public key", () => {
  it("verifies with the key's own algorithms only, and reads the user from userClaim", async () => {
    const pair = await generateKeyPair("ES256", { extractable: true });
    const key: SigningKey = { kid: "pem", alg: "ES256", privateKey: pair.privateKey, jwk: {} };
    const t = await startAuthServer({
      auth: jwtAuthenticator({
        publicKey: await exportSPKI(pair.publicKey),
        issuer: ISSUER,
        audience: AUDIENCE,
        userClaim: "email",
      }),
    });
    try {
      const good = await token(key, { email: "alice" }, { kid: null });
      expect((await status(t, good)).status).toBe(200);
      expect((await status(t, await token(key, {}, { kid: null }))).status).toBe(401); // no email claim
      const hs = await new SignJWT({ email: "alice" })
        .setProtectedHeader({ alg: "HS256" })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setExpirationTime(now() + 300)
        .sign(new TextEncoder().encode(await exportSPKI(pair.publicKey)));
      expect((await status(t, hs)).status).toBe(401);
      const other = await token(k1, { email: "alice" }, { kid: null });
      expect((await status(t, other)).status).toBe(401);
    } finally {
      await t.close();
    }
  });
});

describe("configuration errors at start-up", () => {
  const base = { issuer: ISSUER, audience: AUDIENCE, jwksUrl: "https://issuer.test/jwks" };
  it.each([
    ["HS256 allowed", { ...base, algorithms: ["HS256"] }, /algorithm "HS256" is not accepted/],
    ["none allowed", { ...base, algorithms: ["none"] }, /algorithm "none" is not accepted/],
    ["no issuer", { ...base, issuer: undefined }, /needs the issuer/],
    ["no audience", { ...base, audience: [] }, /needs the audience/],
    ["plain http JWKS", { ...base, jwksUrl: "http://issuer.test/jwks" }, /must use https/],
    ["two key sources", { ...base, publicKey: "x" }, /exactly one key source/],
    [
      "a broken PEM",
      { issuer: ISSUER, audience: AUDIENCE, publicKey: "-----BEGIN PUBLIC KEY-----\nnope\n-----END PUBLIC KEY-----" },
      /not a PEM public key/,
    ],
  ])("%s", (_name, options, message) => {
    expect(() => jwtAuthenticator(options as unknown as JwtAuthOptions)).toThrow(message);
  });

  it("an RSA PEM key with only EC algorithms allowed is refused", async () => {
    const pem = await exportSPKI((await generateKeyPair("RS256", { extractable: true })).publicKey);
    expect(() =>
      jwtAuthenticator({ issuer: ISSUER, audience: AUDIENCE, publicKey: pem, algorithms: ["ES256"] }),
    ).toThrow(/verifies none of the allowed algorithms/);
  });
});
