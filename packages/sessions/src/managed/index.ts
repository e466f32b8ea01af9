// Managed session service client of @agentkit/sessions (`@agentkit/sessions/managed`).
export {
  ManagedSessionService,
  managedSessionId,
  type ManagedSessionServiceOptions,
} from "./managed-session-service.js";
export { ManagedSessionApiError } from "./managed-http-client.js";
