import { readFileSync } from "node:fs";
import {
  apiKeyAuthenticator,
  isLoopbackHost,
  jwtAuthenticator,
  type RouteRule,
  type ServerAuthOptions,
} from "@agentkit/server";
import { CliUsageError } from "./cli-usage-error.js";
import type { ServeOptions } from "./parse-cli-args.js";

/** `--a2a`'s mount: any principal; the A2A runs are the principal's own (see a2a-routes.ts). */
export const A2A_ROUTE_RULE: RouteRule = { methods: "*", paths: ["/a2a/:app{/*rest}"], access: "authenticated" };

export interface DevServerAuth {
  /** For `createAgentServer({ auth })`; undefined: no authentication. */
  options?: ServerAuthOptions;
  /** The start-up banner's auth line, when there is something to say. */
  banner?: string;
}

/**
 * The server's authentication from the CLI options. Without `--auth`, a non-loopback host is
 * refused (anyone on the network could read and change every user's sessions) unless the
 * operator passed `--insecure-no-auth`. Bad keys files and PEM keys fail here, at start-up.
 */
export function devServerAuth(options: ServeOptions, command: string): DevServerAuth {
  const auth = options.auth;
  const loopback = isLoopbackHost(options.host);
  if (!auth) {
    if (loopback) return {};
    if (!options.insecureNoAuth)
      throw new CliUsageError(
        `agentkit ${command}: refusing to listen on ${options.host} without authentication: anyone who can reach it ` +
          "could read, change and delete every user's sessions.\n" +
          "Turn authentication on with --auth api-key --api-keys-file <file> (one `<key> <userId> [scope…]` per " +
          "line)\n" +
          "or --auth jwt --jwt-jwks-url <url> --jwt-issuer <iss> --jwt-audience <aud>;\n" +
          "or, on a network you trust, pass --insecure-no-auth.",
      );
    return { banner: "auth: NONE (--insecure-no-auth): every user's data is open to anyone who can connect" };
  }
  if (auth.mode === "api-key") {
    const authenticate = auth.keysFile
      ? apiKeyAuthenticator({ file: auth.keysFile })
      : apiKeyAuthenticator({ text: auth.keysText ?? "", source: "AGENTKIT_API_KEYS", semicolons: true });
    return {
      options: { authenticate, routes: [A2A_ROUTE_RULE] },
      banner: `auth: api-key (keys from ${auth.keysFile ?? "AGENTKIT_API_KEYS"})`,
    };
  }
  let publicKey: string | undefined;
  if (auth.publicKeyFile !== undefined) {
    try {
      publicKey = readFileSync(auth.publicKeyFile, "utf8");
    } catch (error) {
      throw new CliUsageError(`--jwt-public-key-file: cannot read ${auth.publicKeyFile}: ${(error as Error).message}`);
    }
  }
  const authenticate = jwtAuthenticator({
    ...(auth.jwksUrl !== undefined ? { jwksUrl: auth.jwksUrl } : { publicKey: publicKey! }),
    issuer: auth.issuer,
    audience: auth.audience,
    userClaim: auth.userClaim,
  });
  return {
    options: { authenticate, routes: [A2A_ROUTE_RULE] },
    banner:
      `auth: jwt (${auth.jwksUrl ?? auth.publicKeyFile}; issuer ${auth.issuer.join(", ")}; ` +
      `audience ${auth.audience.join(", ")}; user claim ${auth.userClaim})`,
  };
}
