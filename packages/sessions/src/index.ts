// Public API of @agentkit/sessions. The in-memory services live in core (so core's own tests
// and users need no extra package) and are re-exported here next to the persistent backends.
export { InMemorySessionService, InMemoryMemoryService } from "@agentkit/core";
