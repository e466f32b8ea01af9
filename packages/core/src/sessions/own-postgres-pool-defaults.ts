/**
 * Defaults of a PostgreSQL pool a package creates itself (session services, the session lock,
 * the credential store, the vector store; never applied to a pool of the caller's): 10 s to open
 * a connection, and TCP keepalive probes from 10 s of silence on, so a connection whose server or
 * network went away ends in an error once the probes go unanswered, instead of waiting for an
 * answer that never comes (`keepAlive: true` alone would send the first probe only after the
 * operating system's default idle time: two hours on Linux). No `statement_timeout`: long
 * statements can be legitimate. Plain values (node-postgres `PoolConfig` fields): core does not
 * depend on the driver; the caller's own `poolConfig` overrides any of them.
 */
export const OWN_POSTGRES_POOL_DEFAULTS = {
  connectionTimeoutMillis: 10_000,
  keepAlive: true,
  keepAliveInitialDelayMillis: 10_000,
} as const;
