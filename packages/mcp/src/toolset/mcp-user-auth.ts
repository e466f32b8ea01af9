import type { ReadonlyContext, ToolContext } from "@agentkit/core";
import { credentialDependenciesOfContext } from "@agentkit/core/internal";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { McpAuthOptions } from "./mcp-auth-options.js";
import { mcpCredentialKeys, McpUserOAuthProvider } from "./mcp-oauth-provider.js";
import { McpSessionManager, type McpSessionManagerOptions } from "./mcp-session-manager.js";

interface UserSession {
  manager: McpSessionManager;
  provider: McpUserOAuthProvider;
}

/** True when an MCP operation failed because the user has not (or no longer) authorized it. */
export function isUnauthorized(error: unknown): boolean {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UnauthorizedError) return true;
    // By name too: the SDK may be loaded twice (its ESM and source builds), each with its own class.
    if (e instanceof Error && (e.name === "UnauthorizedError" || e.constructor?.name === "UnauthorizedError"))
      return true;
  }
  return false;
}

/**
 * Per-user MCP authorization for one server: a session (and SDK OAuth provider) per app and user,
 * tokens in the runner's credential service. When the server wants authorization, the SDK's
 * authorization URL goes to the user through the flow (`adk_request_credential`); the code that
 * comes back is redeemed here, with the SDK's own PKCE verifier, before the call runs again.
 */
export class McpUserAuth {
  private readonly sessions = new Map<string, UserSession>();
  private readonly keys: { record: string; code: string };

  constructor(
    private readonly options: McpAuthOptions,
    private readonly serverUrl: string,
    private readonly sessionOptions: Omit<McpSessionManagerOptions, "authProvider">,
  ) {
    this.keys = mcpCredentialKeys(serverUrl);
  }

  /** The user's session, created on first use. */
  sessionFor(context: ReadonlyContext): UserSession {
    const key = JSON.stringify([context.appName, context.userId]);
    let session = this.sessions.get(key);
    if (!session) {
      const { credentialService } = credentialDependenciesOfContext(context);
      const provider = new McpUserOAuthProvider(this.options, this.serverUrl, credentialService, context);
      session = { provider, manager: new McpSessionManager({ ...this.sessionOptions, authProvider: provider }) };
      this.sessions.set(key, session);
    }
    session.provider.useContext(context);
    return session;
  }

  /** Redeems an authorization code the user just delivered (if any), so the call can run. */
  async completePending(toolContext: ToolContext): Promise<UserSession> {
    const session = this.sessionFor(toolContext);
    const config = this.codeConfig();
    const delivered = await toolContext.getCredential(config);
    const code = delivered?.oauth2?.authCode;
    if (code) {
      await toolContext.deleteCredential(config);
      await auth(session.provider, { serverUrl: this.serverUrl, authorizationCode: code });
    }
    return session;
  }

  /**
   * Asks the user to authorize (after the server refused the call): the SDK's authorization URL
   * becomes an `adk_request_credential` request. Returns the tool's interim response.
   */
  async requestAuthorization(toolContext: ToolContext, session: UserSession): Promise<Record<string, unknown>> {
    let url = await session.provider.takeAuthorizationUrl();
    if (!url) {
      const result = await auth(session.provider, { serverUrl: this.serverUrl });
      url = await session.provider.takeAuthorizationUrl();
      if (result === "AUTHORIZED" || !url) {
        return { error: `The MCP server ${this.serverUrl} refused the call although the user is authorized.` };
      }
    }
    toolContext.requestCredential({
      ...this.codeConfig(),
      exchangedAuthCredential: {
        authType: "oauth2",
        oauth2: {
          authUri: url.toString(),
          ...(this.options.redirectUri ? { redirectUri: this.options.redirectUri } : {}),
        },
      },
    });
    return {
      pending: true,
      message: `Waiting for the user to authorize access to ${new URL(this.serverUrl).host}; the call runs once they have.`,
    };
  }

  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(sessions.map((s) => s.manager.close()));
  }

  private codeConfig() {
    const origin = new URL(this.serverUrl).origin;
    return {
      authScheme: {
        type: "oauth2" as const,
        flows: { authorizationCode: { authorizationUrl: origin, tokenUrl: origin, scopes: {} } },
      },
      credentialKey: this.keys.code,
    };
  }
}
