import { createHash } from "node:crypto";
import type { AuthConfig, BaseCredentialService, ReadonlyContext } from "@agentkit/core";
import type { OAuthClientProvider, OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { randomBytes } from "node:crypto";
import type { McpAuthOptions } from "./mcp-auth-options.js";

/** What one user's MCP authorization keeps between requests (encrypted by a persistent credential service). */
interface McpAuthRecord {
  clientInformation?: OAuthClientInformationMixed;
  tokens?: OAuthTokens & { expires_at?: number };
  codeVerifier?: string;
  discovery?: OAuthDiscoveryState;
}

/** The credential-service key of a server's authorization records (and of the code the flow hands back). */
export function mcpCredentialKeys(serverUrl: string): { record: string; code: string } {
  const hash = createHash("sha256").update(serverUrl).digest("hex").slice(0, 16);
  return { record: `mcp_${hash}`, code: `mcp_${hash}_code` };
}

/**
 * The MCP SDK's `OAuthClientProvider` for one user of one server: client registration, tokens,
 * PKCE verifier and discovery results are kept in the runner's credential service under the
 * user's app and id, so any replica continues the same authorization. The authorization URL the
 * SDK builds is captured (`takeAuthorizationUrl`) for the flow to show the user.
 */
export class McpUserOAuthProvider implements OAuthClientProvider {
  private context: ReadonlyContext;
  private authorizationUrl?: URL;
  private pendingVerifier?: string;
  private readonly recordConfig: AuthConfig;
  readonly clientMetadataUrl?: string;

  constructor(
    private readonly options: McpAuthOptions,
    serverUrl: string,
    private readonly service: BaseCredentialService,
    context: ReadonlyContext,
  ) {
    this.context = context;
    this.clientMetadataUrl = options.clientMetadataUrl;
    this.recordConfig = {
      authScheme: { type: "oauth2", flows: {} },
      credentialKey: mcpCredentialKeys(serverUrl).record,
    };
  }

  /** The context of the call in progress (same app and user; its session may differ). */
  useContext(context: ReadonlyContext): void {
    this.context = context;
  }

  get redirectUrl(): string | undefined {
    return this.options.redirectUri;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.clientName ?? "agentkit",
      redirect_uris: this.options.redirectUri ? [this.options.redirectUri] : [],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...(this.options.clientSecret ? {} : { token_endpoint_auth_method: "none" }),
      ...(this.options.scopes?.length ? { scope: this.options.scopes.join(" ") } : {}),
    };
  }

  state(): string {
    return randomBytes(32).toString("base64url");
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    if (this.options.clientId) {
      return {
        client_id: this.options.clientId,
        ...(this.options.clientSecret ? { client_secret: this.options.clientSecret } : {}),
      };
    }
    return (await this.load()).clientInformation;
  }

  async saveClientInformation(clientInformation: OAuthClientInformationMixed): Promise<void> {
    await this.update((r) => ({ ...r, clientInformation }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.load()).tokens;
    if (!tokens) return undefined;
    // The SDK refreshes on a 401; report the remaining lifetime so it can do so before.
    if (tokens.expires_at !== undefined) {
      const { expires_at: expiresAt, ...rest } = tokens;
      return { ...rest, expires_in: Math.max(0, Math.floor(expiresAt - Date.now() / 1000)) };
    }
    return tokens;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    const expiresAt = tokens.expires_in !== undefined ? Math.floor(Date.now() / 1000 + tokens.expires_in) : undefined;
    await this.update((r) => ({
      ...r,
      // A refresh response may omit the refresh token: keep the one we have.
      tokens: { refresh_token: r.tokens?.refresh_token, ...tokens, ...(expiresAt ? { expires_at: expiresAt } : {}) },
      codeVerifier: undefined,
    }));
  }

  redirectToAuthorization(authorizationUrl: URL): void {
    this.authorizationUrl = authorizationUrl;
  }

  /**
   * The authorization URL the SDK wants the user to open, once; its PKCE verifier is stored only
   * now. (Every 401 makes the SDK start an authorization, also while the flow merely lists tools:
   * storing each verifier at once would replace the one of the URL the user is looking at.)
   */
  async takeAuthorizationUrl(): Promise<URL | undefined> {
    const url = this.authorizationUrl;
    const verifier = this.pendingVerifier;
    this.authorizationUrl = undefined;
    this.pendingVerifier = undefined;
    if (url && verifier) await this.update((r) => ({ ...r, codeVerifier: verifier }));
    return url;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.pendingVerifier = codeVerifier;
  }

  async codeVerifier(): Promise<string> {
    const verifier = (await this.load()).codeVerifier;
    if (!verifier) throw new Error("No PKCE verifier is stored for this authorization: start it again.");
    return verifier;
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.update((r) => ({ ...r, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.load()).discovery;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "all") {
      await this.service.deleteCredential(this.recordConfig, this.context);
      return;
    }
    const field = (
      { client: "clientInformation", tokens: "tokens", verifier: "codeVerifier", discovery: "discovery" } as const
    )[scope];
    await this.update((r) => ({ ...r, [field]: undefined }));
  }

  private async load(): Promise<McpAuthRecord> {
    const credential = await this.service.loadCredential(this.recordConfig, this.context);
    return ((credential as { mcp?: McpAuthRecord } | undefined)?.mcp ?? {}) as McpAuthRecord;
  }

  private async update(change: (record: McpAuthRecord) => McpAuthRecord): Promise<void> {
    const next = change(await this.load());
    await this.service.saveCredential(
      { ...this.recordConfig, exchangedAuthCredential: { authType: "oauth2", mcp: next } as never },
      this.context,
    );
  }
}
