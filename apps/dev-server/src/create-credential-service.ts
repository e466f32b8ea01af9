import {
  CredentialCipher,
  InMemoryCredentialService,
  StoredCredentialService,
  type BaseCredentialService,
} from "@agentkit/core";

/** The credential service of the dev server and how to describe it in the banner. */
export interface CredentialServiceChoice {
  service: BaseCredentialService;
  describe: string;
}

/**
 * Tools' credentials (docs/auth.md) live next to the sessions, encrypted with
 * `AGENTKIT_CREDENTIAL_KEY`: a table (SQLite, PostgreSQL) or a collection (MongoDB) of their own
 * in the sessions' database. Without the key nothing is written to disk: credentials stay in
 * process memory (users authorize again after a restart). A malformed key fails the start.
 */
export async function createCredentialService(
  sessionUri: string,
  env: Record<string, string | undefined> = process.env,
): Promise<CredentialServiceChoice> {
  const cipher = CredentialCipher.fromEnv(env);
  const scheme = sessionUri.slice(0, Math.max(0, sessionUri.indexOf(":"))).toLowerCase();
  if (!cipher || !["sqlite", "postgres", "postgresql", "mongodb", "mongodb+srv"].includes(scheme)) {
    return {
      service: new InMemoryCredentialService(),
      describe: cipher
        ? "memory (the session store keeps no credentials)"
        : "memory (set AGENTKIT_CREDENTIAL_KEY to keep them, encrypted, with the sessions)",
    };
  }
  if (scheme === "sqlite") {
    const { SqliteCredentialStore } = await import("@agentkit/sessions/sqlite");
    return {
      service: new StoredCredentialService({ store: SqliteCredentialStore.fromUri(sessionUri), cipher }),
      describe: "encrypted, in the session database",
    };
  }
  if (scheme.startsWith("postgres")) {
    const { PostgresCredentialStore } = await import("@agentkit/sessions/postgres");
    return {
      service: new StoredCredentialService({ store: PostgresCredentialStore.fromUri(sessionUri), cipher }),
      describe: "encrypted, in the session database",
    };
  }
  const { MongoCredentialStore } = await import("@agentkit/sessions/mongodb");
  return {
    service: new StoredCredentialService({ store: new MongoCredentialStore({ uri: sessionUri }), cipher }),
    describe: "encrypted, in the session database",
  };
}
