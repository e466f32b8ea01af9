/// <reference path="./oidc-provider.d.ts" />
// A real OAuth 2.0 / OpenID Connect authorization server for tests (oidc-provider, a certified
// OpenID Provider implementation): authorization code with PKCE (required), refresh tokens,
// client credentials, revocation, introspection, single-use codes, optional dynamic client
// registration and resource indicators. Listens on 127.0.0.1, port 0. The login step has no
// form: an interaction is finished at once as the account the test names (or the default one).
import { generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";

export interface OAuthTestClient {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: string;
  scope?: string;
}

export interface StartOAuthProviderOptions {
  /** Registered clients (default: `agentkit-test` / `agentkit-test-secret`, code + refresh + client credentials). */
  clients?: OAuthTestClient[];
  /** Redirect URIs of the default client. */
  redirectUris?: string[];
  /** Extra scopes the server knows (besides openid, offline_access). Default `api.read api.write`. */
  scopes?: string[];
  /** Access token lifetime in seconds (default 3600). */
  accessTokenTtl?: number;
  /** The account an interaction logs in when the test names none (browser flows). Default `alice`. */
  defaultAccount?: string;
  /** Enable dynamic client registration (RFC 7591), open to anyone. */
  registration?: boolean;
  /** Enable resource indicators (RFC 8707): tokens are issued for these resource URLs (opaque, introspectable). */
  resources?: string[];
  /** The same, read when a token is requested (for resource servers started after this one). */
  resourcesFrom?: () => string[];
}

export interface OAuthTestProvider {
  issuer: string;
  discoveryUrl: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  introspectionEndpoint: string;
  revocationEndpoint: string;
  clientId: string;
  clientSecret: string;
  /**
   * Plays the user's browser: opens `authUri`, logs in as `account` and returns the URL the server
   * redirected to (the client's redirect URI with `code` and `state`).
   */
  authorize(authUri: string, account?: string): Promise<string>;
  /** Token introspection as a resource server would do it: `{ active, sub, client_id, scope }`. */
  introspect(token: string): Promise<Record<string, unknown>>;
  /** Revokes a token (access or refresh) as the default client. */
  revoke(token: string): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_CLIENT_ID = "agentkit-test";
const DEFAULT_CLIENT_SECRET = "agentkit-test-secret";
const RESOURCE_SERVER_ID = "resource-server";
const RESOURCE_SERVER_SECRET = "resource-server-secret";

/** oidc-provider's storage, in this server's memory (its own default warns on every start). */
function memoryAdapter() {
  const records = new Map<string, Record<string, unknown>>();
  const grants = new Map<string, Set<string>>();
  return class MemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string): string {
      return `${this.model}:${id}`;
    }
    async upsert(id: string, payload: Record<string, unknown>): Promise<void> {
      const key = this.key(id);
      records.set(key, payload);
      const grantId = payload.grantId as string | undefined;
      if (grantId) {
        if (!grants.has(grantId)) grants.set(grantId, new Set());
        grants.get(grantId)!.add(key);
      }
    }
    async find(id: string) {
      return records.get(this.key(id));
    }
    async findByUid(uid: string) {
      for (const [key, value] of records) if (key.startsWith(`${this.model}:`) && value.uid === uid) return value;
      return undefined;
    }
    async findByUserCode(userCode: string) {
      for (const [key, value] of records)
        if (key.startsWith(`${this.model}:`) && value.userCode === userCode) return value;
      return undefined;
    }
    async consume(id: string): Promise<void> {
      const record = records.get(this.key(id));
      if (record) record.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string): Promise<void> {
      records.delete(this.key(id));
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of grants.get(grantId) ?? []) records.delete(key);
      grants.delete(grantId);
    }
  };
}

export async function startOAuthProvider(options: StartOAuthProviderOptions = {}): Promise<OAuthTestProvider> {
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const defaultAccount = options.defaultAccount ?? "alice";
  const scopes = options.scopes ?? ["api.read", "api.write"];
  const jwk = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });

  const clients: OAuthTestClient[] = options.clients ?? [
    {
      client_id: DEFAULT_CLIENT_ID,
      client_secret: DEFAULT_CLIENT_SECRET,
      redirect_uris: options.redirectUris ?? ["http://127.0.0.1/callback"],
      grant_types: ["authorization_code", "refresh_token", "client_credentials"],
      response_types: ["code"],
      scope: ["openid", "offline_access", ...scopes].join(" "),
    },
  ];
  clients.push({
    client_id: RESOURCE_SERVER_ID,
    client_secret: RESOURCE_SERVER_SECRET,
    redirect_uris: [],
    grant_types: [],
    response_types: [],
  });
  const resourceList = (): string[] => options.resourcesFrom?.() ?? options.resources ?? [];
  const resourcesEnabled = Boolean(options.resources?.length || options.resourcesFrom);

  const provider = new Provider(issuer, {
    adapter: memoryAdapter(),
    clients,
    jwks: { keys: [{ ...jwk, kid: "test", use: "sig", alg: "RS256" }] },
    cookies: { keys: ["agentkit-test-cookie-key"] },
    scopes: ["openid", "offline_access", ...scopes],
    pkce: { required: () => true },
    ttl: {
      AccessToken: options.accessTokenTtl ?? 3600,
      ClientCredentials: options.accessTokenTtl ?? 3600,
      AuthorizationCode: 600,
      Grant: 86400,
      IdToken: 3600,
      Interaction: 600,
      RefreshToken: 86400,
      Session: 86400,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      registration: { enabled: options.registration ?? false },
      resourceIndicators: {
        enabled: resourcesEnabled,
        defaultResource: () => resourceList()[0],
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => {
          if (!resourceList().includes(resource)) throw new Error(`unknown resource ${resource}`);
          return { scope: scopes.join(" "), audience: resource, accessTokenFormat: "opaque" };
        },
      },
    },
    // Every refresh-token grant type client gets one, without the offline_access consent dance.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(t: string): boolean }) =>
      client.grantTypeAllowed("refresh_token"),
    // Consent is implied: the grant covers whatever the client asked for.
    loadExistingGrant: async (ctx: {
      oidc: {
        client: { clientId: string };
        session: { accountId: string; grantIdFor(id: string): string | undefined };
        params: { scope?: string; resource?: string | string[] };
        provider: Provider & { Grant: { find(id: string): Promise<unknown> } };
      };
    }) => {
      const { client, session, params, provider: p } = ctx.oidc;
      const grant = new p.Grant({ clientId: client.clientId, accountId: session.accountId });
      const requested = params.scope ?? "openid";
      grant.addOIDCScope(requested);
      const known = resourceList();
      const asked = params.resource ? [params.resource].flat() : known.slice(0, 1);
      for (const r of asked) if (known.includes(r)) grant.addResourceScope(r, requested);
      const id = await grant.save();
      return p.Grant.find(id);
    },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    renderError: async (ctx: { type: string; body: string }, out: Record<string, unknown>) => {
      ctx.type = "json";
      ctx.body = JSON.stringify(out);
    },
  });
  const callback = provider.callback();
  handler = (req, res) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname.startsWith("/interaction/")) {
      const account = url.searchParams.get("account") ?? defaultAccount;
      provider
        .interactionFinished(req, res, { login: { accountId: account } }, { mergeWithLastSubmission: false })
        .catch((error: unknown) => {
          res.statusCode = 400;
          res.end(String(error));
        });
      return;
    }
    callback(req, res);
  };

  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  const defaultClient = clients[0]!;

  return {
    issuer,
    discoveryUrl: `${issuer}/.well-known/openid-configuration`,
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    introspectionEndpoint: `${issuer}/token/introspection`,
    revocationEndpoint: `${issuer}/token/revocation`,
    clientId: defaultClient.client_id,
    clientSecret: defaultClient.client_secret ?? "",
    async authorize(authUri, account) {
      const cookies = new Map<string, string>();
      let url = authUri;
      for (let hop = 0; hop < 10; hop++) {
        const target = new URL(url, issuer);
        if (target.origin !== issuer) return target.toString();
        if (target.pathname.startsWith("/interaction/") && account) target.searchParams.set("account", account);
        const response = await fetch(target, {
          redirect: "manual",
          headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") },
        });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const eq = pair!.indexOf("=");
          cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
        }
        const location = response.headers.get("location");
        await response.arrayBuffer();
        if (!location) throw new Error(`authorization stopped at ${target.pathname} with HTTP ${response.status}`);
        url = new URL(location, target).toString();
      }
      throw new Error("authorization redirected too many times");
    },
    async introspect(token) {
      const response = await fetch(`${issuer}/token/introspection`, {
        method: "POST",
        headers: {
          authorization: basic(RESOURCE_SERVER_ID, RESOURCE_SERVER_SECRET),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
      return (await response.json()) as Record<string, unknown>;
    },
    async revoke(token) {
      const response = await fetch(`${issuer}/token/revocation`, {
        method: "POST",
        headers: {
          authorization: basic(defaultClient.client_id, defaultClient.client_secret ?? ""),
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ token }),
      });
      await response.arrayBuffer();
      if (!response.ok) throw new Error(`revocation failed: HTTP ${response.status}`);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
