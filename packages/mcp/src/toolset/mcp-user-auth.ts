import type { ReadonlyContext, ToolContext } from "@agentkit/core";
import { credentialDependenciesOfContext } from "@agentkit/core/internal";
import { auth, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import type { McpAuthOptions } from "./mcp-auth-options.js";
import { mcpCredentialKeys, McpUserOAuthProvider } from "./mcp-oauth-provider.js";
import { McpSessionInitError } from "../errors/mcp-errors.js";
import { describeServer } from "./connection-params.js";
import { McpSessionManager, type McpSessionManagerOptions } from "./mcp-session-manager.js";
import { IdleSweeper } from "../idle-sweeper.js";

interface UserSession {
  /** `[appName, userId]`, its key in the sessions. */
  key: string;
  manager: McpSessionManager;
  provider: McpUserOAuthProvider;
  /** Uses in progress (a listing or a call): a session in use is never closed by the bounds. */
  inUse: number;
  /** When the last use started or ended (`now()`). */
  lastUsed: number;
}

/** Bounds of the per-user sessions of one toolset (`McpToolsetOptions.userSessions`). */
export interface McpUserSessionOptions {
  /**
   * Most user sessions kept open; beyond it the least recently used idle ones are closed (a user
   * whose session was closed gets a new one on their next call). Default 100.
   */
  maxSessions?: number;
  /** A user session unused for this long is closed. Default 15 minutes. */
  idleTimeoutMs?: number;
  /** The clock, in milliseconds (for tests). Default `Date.now`. */
  now?: () => number;
}

const DEFAULT_MAX_USER_SESSIONS = 100;
const DEFAULT_USER_SESSION_IDLE_MS = 15 * 60_000;

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
  /** Sessions by `[appName, userId]`, least recently used first. */
  private readonly sessions = new Map<string, UserSession>();
  private readonly keys: { record: string; code: string };
  private readonly maxSessions: number;
  private readonly idleTimeoutMs: number;
  private readonly now: () => number;
  /** The idle sweep's timer and the closes of the sessions it let go. */
  private readonly sweeper: IdleSweeper;
  private closed = false;

  constructor(
    private readonly options: McpAuthOptions,
    private readonly serverUrl: string,
    private readonly sessionOptions: Omit<McpSessionManagerOptions, "authProvider">,
    bounds: McpUserSessionOptions = {},
  ) {
    this.keys = mcpCredentialKeys(serverUrl);
    this.maxSessions = bounds.maxSessions ?? DEFAULT_MAX_USER_SESSIONS;
    this.idleTimeoutMs = bounds.idleTimeoutMs ?? DEFAULT_USER_SESSION_IDLE_MS;
    this.now = bounds.now ?? Date.now;
    this.sweeper = new IdleSweeper(() => this.sweep(), this.idleTimeoutMs);
  }

  /**
   * Runs `use` on the user's session (created on first use). While it runs the session is in use:
   * the bounds never close it. Every use sweeps: sessions idle past `idleTimeoutMs` are closed,
   * then the least recently used idle ones beyond `maxSessions`.
   */
  async use<T>(context: ReadonlyContext, use: (session: UserSession) => Promise<T>): Promise<T> {
    const session = this.acquire(context);
    try {
      return await use(session);
    } finally {
      session.inUse -= 1;
      session.lastUsed = this.now();
      if (this.sessions.get(session.key) === session) {
        this.sessions.delete(session.key); // the most recently used again
        this.sessions.set(session.key, session);
      }
      this.sweep();
    }
  }

  /** Redeems an authorization code the user just delivered (if any), so the call can run. */
  async completePending(toolContext: ToolContext, session: UserSession): Promise<void> {
    const config = this.codeConfig();
    const delivered = await toolContext.getCredential(config);
    const code = delivered?.oauth2?.authCode;
    if (code) {
      await toolContext.deleteCredential(config);
      await auth(session.provider, { serverUrl: this.serverUrl, authorizationCode: code });
    }
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

  /** Closes every user's session (also those in use: the toolset is closing). Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all([...sessions.map((s) => s.manager.close()), this.sweeper.drain()]);
  }

  /** The user's session, most recently used from now on, in use until the caller's `use` ends. */
  private acquire(context: ReadonlyContext): UserSession {
    if (this.closed) {
      const server = describeServer(this.sessionOptions.connection);
      throw new McpSessionInitError(server, `The MCP toolset for ${server} is closed; create a new McpToolset.`);
    }
    const key = JSON.stringify([context.appName, context.userId]);
    let session = this.sessions.get(key);
    if (session) {
      this.sessions.delete(key); // re-inserted last: the most recently used
    } else {
      const { credentialService } = credentialDependenciesOfContext(context);
      const provider = new McpUserOAuthProvider(this.options, this.serverUrl, credentialService, context);
      const manager = new McpSessionManager({ ...this.sessionOptions, authProvider: provider });
      session = { key, provider, manager, inUse: 0, lastUsed: 0 };
    }
    this.sessions.set(key, session);
    session.inUse += 1;
    session.lastUsed = this.now();
    session.provider.useContext(context);
    this.sweep();
    return session;
  }

  /** Closes sessions idle past the timeout, then the least recently used idle ones beyond the maximum. */
  private sweep(): void {
    const now = this.now();
    for (const session of this.sessions.values()) {
      if (session.inUse === 0 && now - session.lastUsed >= this.idleTimeoutMs) this.release(session);
    }
    let excess = this.sessions.size - this.maxSessions;
    for (const session of this.sessions.values()) {
      if (excess <= 0) break;
      if (session.inUse > 0) continue;
      this.release(session);
      excess -= 1;
    }
    this.sweeper.update(this.sessions.size > 0 && !this.closed);
  }

  /**
   * Forgets an idle session and closes it in the background: its MCP session ends on the server
   * (the close still needs the user's token, so the provider keeps the last call's context until
   * then), and the session, its provider and that context are let go.
   */
  private release(session: UserSession): void {
    this.sessions.delete(session.key);
    this.sweeper.closeInBackground(() => session.manager.close());
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
