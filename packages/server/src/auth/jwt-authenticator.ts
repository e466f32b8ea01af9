import { createPublicKey, type KeyObject } from "node:crypto";
import { ConfigurationError } from "@agentkit/core";
import type { JWTPayload, JWTVerifyGetKey } from "jose";
import { isLoopbackHost } from "../http/host-guard.js";
import { AuthenticationError, AuthenticationUnavailableError } from "./auth-errors.js";
import { checkedPrincipal, type Authenticator } from "./authenticator.js";
import { bearerTokenOf } from "./bearer-token.js";

export interface JwtAuthOptions {
  /**
   * Where the issuer publishes its signing keys (https; plain http only on a loopback host).
   * Keys are cached; a token with an unknown `kid` refetches the set, at most once per
   * `jwksCooldownMs` (key rotation without a restart, and no fetch storm from forged kids).
   */
  jwksUrl?: string;
  /** Or one PEM public key (SPKI `PUBLIC KEY`, `RSA PUBLIC KEY`, or an X.509 certificate). */
  publicKey?: string;
  /** Accepted `iss` value(s). Required. */
  issuer: string | readonly string[];
  /** Accepted `aud` value(s). Required: without it a token minted for another service would pass. */
  audience: string | readonly string[];
  /**
   * Accepted `alg` values, asymmetric only (`none` and HS* are refused). Default: every
   * asymmetric JWS algorithm; with `publicKey`, the ones its key type can verify.
   */
  algorithms?: readonly string[];
  /** Clock skew tolerated on `exp`, `nbf` and `iat`, in seconds. Default 30. */
  clockToleranceSec?: number;
  /** The claim holding the user id. Default `sub`. */
  userClaim?: string;
  /** Least time between two JWKS fetches triggered by unknown keys, in ms. Default 30 000 (jose's). */
  jwksCooldownMs?: number;
  /** How long fetched keys are trusted before a refetch, in ms. Default 600 000 (jose's). */
  jwksCacheMaxAgeMs?: number;
  /** JWKS request timeout in ms. Default 5000. */
  jwksTimeoutMs?: number;
}

/** Every asymmetric JWS algorithm jose verifies. */
export const ASYMMETRIC_JWT_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
] as const;

const DEFAULT_CLOCK_TOLERANCE_SEC = 30;

type Jose = typeof import("jose");

/**
 * Bearer JWTs verified with `jose` against a JWKS URL or a PEM public key: signature, an
 * asymmetric `alg` from the allow-list, `iss`, `aud`, `exp` (required) and `nbf` with clock
 * skew. The principal's user id is the `userClaim` claim, its scopes the space-separated
 * `scope` claim and/or the `scp` claim (array or string), its claims the verified payload.
 * Configuration errors are thrown here, at start-up; jose itself loads with the first token.
 */
export function jwtAuthenticator(options: JwtAuthOptions): Authenticator {
  const config = checkOptions(options);
  let jose: Promise<Jose> | undefined;
  let remoteKeys: JWTVerifyGetKey | undefined;

  return async (req) => {
    const token = bearerTokenOf(req);
    if (token === undefined) return undefined;
    const lib = await (jose ??= import("jose"));
    const key = config.publicKey ?? (remoteKeys ??= guardedKeySet(lib, config.jwksUrl!, options));
    let payload: JWTPayload;
    try {
      ({ payload } = await lib.jwtVerify(token, key, {
        issuer: config.issuer,
        audience: config.audience,
        algorithms: config.algorithms,
        clockTolerance: options.clockToleranceSec ?? DEFAULT_CLOCK_TOLERANCE_SEC,
        requiredClaims: ["exp"],
      }));
    } catch (error) {
      if (error instanceof AuthenticationUnavailableError) throw error;
      if (error instanceof lib.errors.JOSEError) {
        const failure = error instanceof lib.errors.JWTExpired ? "expired" : "invalid";
        throw new AuthenticationError(failure, `JWT refused: ${error.code}: ${error.message}`);
      }
      throw error;
    }
    const userId = payload[config.userClaim];
    if (typeof userId !== "string" || userId === "")
      throw new AuthenticationError("invalid", `JWT refused: claim "${config.userClaim}" is missing or not a string`);
    return checkedPrincipal({ userId, scopes: scopesOf(payload), claims: payload });
  };
}

interface CheckedJwtOptions {
  jwksUrl?: URL;
  publicKey?: KeyObject;
  issuer: string[];
  audience: string[];
  algorithms: string[];
  userClaim: string;
}

function checkOptions(options: JwtAuthOptions): CheckedJwtOptions {
  if (!options || typeof options !== "object")
    throw new ConfigurationError("jwtAuthenticator needs an options object.");
  const { jwksUrl, publicKey } = options;
  if ((jwksUrl === undefined) === (publicKey === undefined))
    throw new ConfigurationError("JWT auth needs exactly one key source: a JWKS URL or a PEM public key.");
  const issuer = nonEmptyList(options.issuer, "issuer (the tokens' iss)");
  const audience = nonEmptyList(options.audience, "audience (the tokens' aud)");
  const allowed = [...(options.algorithms ?? ASYMMETRIC_JWT_ALGORITHMS)];
  for (const alg of allowed) {
    if (!(ASYMMETRIC_JWT_ALGORITHMS as readonly string[]).includes(alg))
      throw new ConfigurationError(
        `JWT auth: algorithm ${JSON.stringify(alg)} is not accepted; use asymmetric ones ` +
          `(${ASYMMETRIC_JWT_ALGORITHMS.join(", ")}). ` +
          "`none` and HMAC (HS*) are refused: a public key must never verify a symmetric signature.",
      );
  }
  const userClaim = options.userClaim ?? "sub";
  if (typeof userClaim !== "string" || userClaim === "")
    throw new ConfigurationError("JWT auth: userClaim must be a claim name.");
  const checked: CheckedJwtOptions = { issuer, audience, algorithms: allowed, userClaim };
  if (jwksUrl !== undefined) {
    let url: URL;
    try {
      url = new URL(jwksUrl);
    } catch {
      throw new ConfigurationError(`JWT auth: the JWKS URL is not a URL: ${JSON.stringify(jwksUrl)}.`);
    }
    if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname)))
      throw new ConfigurationError(
        `JWT auth: the JWKS URL must use https (plain http only on a loopback host), got ${url.protocol}//${url.host}.`,
      );
    checked.jwksUrl = url;
  } else {
    let key: KeyObject;
    try {
      key = createPublicKey(publicKey!);
    } catch (error) {
      throw new ConfigurationError(`JWT auth: the public key is not a PEM public key: ${(error as Error).message}`);
    }
    const forKey = algorithmsForKey(key);
    checked.algorithms = allowed.filter((alg) => forKey.includes(alg));
    if (checked.algorithms.length === 0)
      throw new ConfigurationError(
        `JWT auth: a ${key.asymmetricKeyType ?? "unknown"} public key verifies none of the allowed algorithms ` +
          `(${allowed.join(", ")}).`,
      );
    checked.publicKey = key;
  }
  return checked;
}

function nonEmptyList(value: string | readonly string[] | undefined, what: string): string[] {
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? [...value] : [];
  if (list.length === 0 || list.some((v) => typeof v !== "string" || v === ""))
    throw new ConfigurationError(`JWT auth needs the ${what}.`);
  return list;
}

/** The JWS algorithms a public key can verify. */
function algorithmsForKey(key: KeyObject): string[] {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
    case "rsa-pss":
      return ["PS256", "PS384", "PS512"];
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      const alg = { prime256v1: "ES256", secp384r1: "ES384", secp521r1: "ES512" }[curve ?? ""];
      return alg ? [alg] : [];
    }
    case "ed25519":
      return ["EdDSA", "Ed25519"];
    default:
      return [];
  }
}

/**
 * jose's remote key set, where a failure to get the keys (network, timeout, a non-200 or
 * invalid JWKS answer) is a 503 rather than the client's fault; a key that does not match the
 * token (unknown kid, wrong type) stays a refused token.
 */
function guardedKeySet(lib: Jose, url: URL, options: JwtAuthOptions): JWTVerifyGetKey {
  const remote = lib.createRemoteJWKSet(url, {
    cooldownDuration: options.jwksCooldownMs ?? 30_000,
    cacheMaxAge: options.jwksCacheMaxAgeMs ?? 600_000,
    timeoutDuration: options.jwksTimeoutMs ?? 5_000,
  });
  const { JWKSNoMatchingKey, JWKSMultipleMatchingKeys, JOSENotSupported, JWKInvalid } = lib.errors;
  return async (header, input) => {
    try {
      return await remote(header, input);
    } catch (error) {
      if (
        error instanceof JWKSNoMatchingKey ||
        error instanceof JWKSMultipleMatchingKeys ||
        error instanceof JOSENotSupported ||
        error instanceof JWKInvalid
      )
        throw error;
      throw new AuthenticationUnavailableError({ cause: error });
    }
  };
}

/** `scope` (space-separated) and `scp` (array or space-separated), merged. */
function scopesOf(payload: JWTPayload): string[] {
  const out = new Set<string>();
  const add = (value: unknown) => {
    if (typeof value === "string") for (const s of value.split(" ")) if (s) out.add(s);
    if (Array.isArray(value)) for (const s of value) if (typeof s === "string" && s) out.add(s);
  };
  add(payload.scope);
  add(payload.scp);
  return [...out];
}
