import type { ReadonlyContext } from "../context/readonly-context.js";
import { CredentialError } from "../errors/auth-errors.js";
import type { Session } from "../sessions/session.js";
import type { AuthCredential } from "./auth-credential.js";
import { withCredentialKey, type AuthConfig, type KeyedAuthConfig } from "./auth-config.js";
import { InMemoryCredentialService, type BaseCredentialService } from "./base-credential-service.js";
import { CredentialExchangerRegistry } from "./credential-exchangers.js";

/** The credential service and exchangers a run uses (the runner's, or process-wide defaults). */
export interface CredentialDependencies {
  credentialService: BaseCredentialService;
  exchangers: CredentialExchangerRegistry;
  signal?: AbortSignal;
}

let fallbackService: BaseCredentialService | undefined;
let fallbackExchangers: CredentialExchangerRegistry | undefined;

/** Defaults for contexts built without a runner (tests of single tools): one in-memory service per process. */
export function defaultCredentialDependencies(): Omit<CredentialDependencies, "signal"> {
  fallbackService ??= new InMemoryCredentialService();
  fallbackExchangers ??= CredentialExchangerRegistry.withDefaults();
  return { credentialService: fallbackService, exchangers: fallbackExchangers };
}

/**
 * The credential a tool can use now, or `undefined` when the user must authorize first:
 * - an API key or HTTP credential given in the config is used as is;
 * - a stored credential is returned, refreshed first when it expires (a refused refresh deletes it,
 *   so the tool asks the user again);
 * - otherwise a credential that needs no user (client credentials, a service account) is exchanged
 *   and stored.
 */
export async function resolveCredential(
  authConfig: AuthConfig,
  context: ReadonlyContext,
  deps: CredentialDependencies,
): Promise<AuthCredential | undefined> {
  const config = withCredentialKey(authConfig);
  const raw = config.rawAuthCredential;
  if (raw && isReadyToUse(config)) return raw;

  const { credentialService, exchangers, signal } = deps;
  const stored = await credentialService.loadCredential(config, context);
  if (stored) {
    const refresher = exchangers.refresherFor(config.authScheme);
    const input = { authScheme: config.authScheme, credential: withClient(stored, raw), signal };
    if (!refresher?.isRefreshNeeded(input)) return stored;
    try {
      const refreshed = await refresher.refresh(input);
      await credentialService.saveCredential(
        { ...config, exchangedAuthCredential: withoutClientSecret(refreshed) },
        context,
      );
      return withoutClientSecret(refreshed);
    } catch (error) {
      if (!(error instanceof CredentialError)) throw error;
      await credentialService.deleteCredential(config, context);
      // Fall through: a client-credentials client gets a new token; a user is asked again.
    }
  }
  if (!raw) return undefined;
  const exchanger = exchangers.exchangerFor(config.authScheme);
  const exchanged = await exchanger?.exchange({ authScheme: config.authScheme, credential: raw, signal });
  if (!exchanged) return undefined;
  const toStore = withoutClientSecret(exchanged);
  await credentialService.saveCredential({ ...config, exchangedAuthCredential: toStore }, context);
  return toStore;
}

/** An API key or an HTTP credential with its values: nothing to exchange. */
function isReadyToUse(config: KeyedAuthConfig): boolean {
  const raw = config.rawAuthCredential!;
  if (config.authScheme.type === "apiKey") return typeof raw.apiKey === "string" && raw.apiKey !== "";
  if (config.authScheme.type === "http") {
    const c = raw.http?.credentials;
    return Boolean(c && (c.token || c.username || c.password));
  }
  return false;
}

/** The stored tokens plus the client's id and secret from the tool's config (for refresh). */
export function withClient(stored: AuthCredential, raw: AuthCredential | undefined): AuthCredential {
  if (!stored.oauth2 || !raw?.oauth2) return stored;
  const { clientId, clientSecret, tokenEndpointAuthMethod, audience } = raw.oauth2;
  return { ...stored, oauth2: { clientId, clientSecret, tokenEndpointAuthMethod, audience, ...stored.oauth2 } };
}

/** The client secret lives in the tool's config, not next to each user's tokens. */
export function withoutClientSecret(credential: AuthCredential): AuthCredential {
  if (!credential.oauth2?.clientSecret) return credential;
  const { clientSecret: _secret, ...oauth2 } = credential.oauth2;
  return { ...credential, oauth2 };
}

const requestedConfigs = new WeakMap<Session, Map<string, KeyedAuthConfig>>();

/**
 * Keeps the full config (with its client secret) a tool asked for, in process memory only,
 * until the flow turns the request into an `adk_request_credential` event. Events carry a
 * redacted copy.
 */
export function rememberRequestedAuthConfig(session: Session, functionCallId: string, config: KeyedAuthConfig): void {
  let byCall = requestedConfigs.get(session);
  if (!byCall) requestedConfigs.set(session, (byCall = new Map()));
  byCall.set(functionCallId, config);
}

/** The full config remembered for a call (and forgets it). */
export function takeRequestedAuthConfig(session: Session, functionCallId: string): KeyedAuthConfig | undefined {
  const byCall = requestedConfigs.get(session);
  const config = byCall?.get(functionCallId);
  byCall?.delete(functionCallId);
  return config;
}
