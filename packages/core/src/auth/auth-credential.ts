/** Kinds of credential (ADK's `AuthCredentialTypes`). */
export const AuthCredentialTypes = {
  API_KEY: "apiKey",
  HTTP: "http",
  OAUTH2: "oauth2",
  OPEN_ID_CONNECT: "openIdConnect",
  SERVICE_ACCOUNT: "serviceAccount",
} as const;
export type AuthCredentialType = (typeof AuthCredentialTypes)[keyof typeof AuthCredentialTypes];

/** Secret values of an HTTP authentication scheme. */
export interface HttpCredentials {
  username?: string;
  password?: string;
  token?: string;
}

/** HTTP authentication (RFC 7235): `scheme` is e.g. `basic` or `bearer`. */
export interface HttpAuth {
  scheme: string;
  credentials: HttpCredentials;
  additionalHeaders?: Record<string, string>;
}

/** An OAuth2 client and, once exchanged, its tokens. */
export interface OAuth2Auth {
  clientId?: string;
  clientSecret?: string;
  /** The authorization URL the user opens (the flow builds it, with `state` and a PKCE challenge). */
  authUri?: string;
  nonce?: string;
  state?: string;
  /** PKCE verifier: kept by the server, never sent to the client. */
  codeVerifier?: string;
  redirectUri?: string;
  /** The URL the provider redirected the user to (carries `code` and `state`). */
  authResponseUri?: string;
  authCode?: string;
  accessToken?: string;
  refreshToken?: string;
  idToken?: string;
  /** Expiry of `accessToken`, in seconds since the epoch. */
  expiresAt?: number;
  expiresIn?: number;
  audience?: string;
  /** `client_secret_basic` (default when a secret is set), `client_secret_post` or `none`. */
  tokenEndpointAuthMethod?: string;
  /** Scopes granted by the provider (space-separated in the token response). */
  scope?: string;
}

/** A service account key (Google's JSON key file, camelCased). */
export interface ServiceAccountCredential {
  type: "service_account";
  projectId: string;
  privateKeyId: string;
  privateKey: string;
  clientEmail: string;
  clientId: string;
  authUri: string;
  tokenUri: string;
  authProviderX509CertUrl: string;
  clientX509CertUrl: string;
  universeDomain: string;
}

/** A service account, or the environment's default credentials. */
export interface ServiceAccount {
  serviceAccountCredential?: ServiceAccountCredential;
  scopes?: string[];
  useDefaultCredential?: boolean;
  useIdToken?: boolean;
  audience?: string;
}

/** A credential (ADK's `AuthCredential`): which kind, and that kind's values. */
export interface AuthCredential {
  authType: AuthCredentialType;
  resourceRef?: string;
  apiKey?: string;
  http?: HttpAuth;
  serviceAccount?: ServiceAccount;
  oauth2?: OAuth2Auth;
}
