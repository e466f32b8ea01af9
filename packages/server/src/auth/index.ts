export { ADMIN_SCOPE, isAdmin, principalOf, setPrincipal, type Principal } from "./principal.js";
export type { Authenticator } from "./authenticator.js";
export type { ServerAuthOptions } from "./access-control.js";
export {
  BUILT_IN_ROUTE_RULES,
  bodyUserOf,
  liveUserOf,
  reasoningEngineUserOf,
  type RouteAccess,
  type RouteRule,
} from "./route-access.js";
export {
  apiKeyAuthenticator,
  MIN_API_KEY_LENGTH,
  type ApiKeyAuthOptions,
  type ApiKeyEntry,
} from "./api-key-authenticator.js";
export { jwtAuthenticator, ASYMMETRIC_JWT_ALGORITHMS, type JwtAuthOptions } from "./jwt-authenticator.js";
export {
  AuthenticationError,
  AuthenticationUnavailableError,
  ForbiddenError,
  type AuthFailure,
} from "./auth-errors.js";
export { bearerTokenOf, WEBSOCKET_BEARER_PREFIX, WEBSOCKET_PROTOCOL } from "./bearer-token.js";
