import { ConfigurationError } from "@agentkit/core";
import { z } from "zod";

/**
 * MCP authorization (OAuth 2.1 as the MCP spec profiles it) for a streamable HTTP or SSE server.
 * - `authorization_code` (default): per user. Each user of the app authorizes once (the flow asks
 *   with `adk_request_credential`); the client discovers the server's protected-resource and
 *   authorization-server metadata, registers itself (dynamic client registration, or a client id
 *   metadata document URL, or the pre-registered `clientId`), uses PKCE and refreshes tokens.
 *   Each user gets their own MCP session; their tokens live in the runner's credential service.
 * - `client_credentials`: machine to machine, one session for everyone (`clientSecret`, or
 *   `privateKeyPem` for `private_key_jwt`).
 */
export interface McpAuthOptions {
  grant?: "authorization_code" | "client_credentials";
  /** Where the authorization server sends the user back (authorization code; e.g. the dev server's `/dev-ui/oauth/callback`). */
  redirectUri?: string;
  /** A pre-registered client; without it the client registers itself. */
  clientId?: string;
  clientSecret?: string;
  /** URL of a client ID metadata document (SEP-991), used as the client id where the server supports it. */
  clientMetadataUrl?: string;
  /** Client name sent in dynamic registration (default `agentkit`). */
  clientName?: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any. */
  scopes?: string[];
  /** `private_key_jwt` client authentication for `client_credentials` (PEM, and its algorithm, default RS256). */
  privateKeyPem?: string;
  signingAlgorithm?: string;
}

export const mcpAuthSchema = z.strictObject({
  grant: z.enum(["authorization_code", "client_credentials"]).optional(),
  redirectUri: z.url({ protocol: /^https?$/ }).optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  clientMetadataUrl: z.url().optional(),
  clientName: z.string().min(1).optional(),
  scopes: z.array(z.string().min(1)).optional(),
  privateKeyPem: z.string().min(1).optional(),
  signingAlgorithm: z.string().min(1).optional(),
});

/** Checks combinations zod cannot: what each grant needs. */
export function checkMcpAuth(auth: McpAuthOptions, transport: string): void {
  if (transport === "stdio") {
    throw new ConfigurationError("McpToolset auth applies to HTTP servers (sse, streamable-http), not stdio.");
  }
  if ((auth.grant ?? "authorization_code") === "authorization_code" && !auth.redirectUri) {
    throw new ConfigurationError("McpToolset auth needs redirectUri for the authorization_code grant.");
  }
  if (auth.grant === "client_credentials" && (!auth.clientId || (!auth.clientSecret && !auth.privateKeyPem))) {
    throw new ConfigurationError(
      "McpToolset auth with client_credentials needs clientId and clientSecret (or privateKeyPem).",
    );
  }
}
