import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createCredentialService } from "./create-credential-service.js";
import {
  ConfigurationError,
  InMemoryArtifactService,
  InMemoryMemoryService,
  InMemorySessionService,
  type BaseArtifactService,
  type BaseCredentialService,
  type BaseMemoryService,
  type BaseSessionService,
  type SessionLock,
} from "@agentkit/core";

/** The three services a server or terminal run needs, and one `close()` for all of them. */
export interface Services {
  sessionService: BaseSessionService;
  artifactService: BaseArtifactService;
  memoryService: BaseMemoryService;
  /** Tools' credentials (encrypted next to the sessions with AGENTKIT_CREDENTIAL_KEY, else in memory). */
  credentialService: BaseCredentialService;
  /**
   * The session lock replicas on the same store share (PostgreSQL and MongoDB, when asked for
   * with `clusterLock`); absent, runs are serialized per process only.
   */
  sessionLock?: SessionLock;
  /** What each service is, for the startup banner (URIs with passwords masked). */
  describe: { sessions: string; artifacts: string; memory: string; credentials: string };
  close(): Promise<void>;
}

export interface ServiceUris {
  sessionServiceUri?: string;
  artifactServiceUri?: string;
  memoryServiceUri?: string;
}

const SESSION_SCHEMES = [
  "memory://",
  "sqlite:///path/sessions.db",
  "postgres://…",
  "mongodb://…",
  "agentengine://projects/P/locations/L/reasoningEngines/ID",
];
const ARTIFACT_SCHEMES = ["memory://", "file:///dir", "s3://bucket/prefix"];
const MEMORY_SCHEMES = ["memory://", "mongodb://…"];

/**
 * Builds the services named by URIs (design.md section 2). The defaults persist under
 * `<agentsDir>/.agentkit/` (SQLite sessions, file artifacts) so nothing is lost on restart;
 * memory defaults to in-memory. Backends load lazily: a SQLite user never loads the MongoDB
 * driver. Each of the three stores is probed once (a read), so an unreachable one fails here, at
 * start, with its masked URI, instead of on the first request. The services open, and are
 * probed, concurrently.
 */
export async function createServices(
  uris: ServiceUris,
  options: { agentsDir: string; probeTimeoutMs?: number; clusterLock?: boolean },
): Promise<Services> {
  const dataDir = join(resolve(options.agentsDir), ".agentkit");
  const sessionUri =
    uris.sessionServiceUri ?? pathToFileURL(join(dataDir, "sessions.db")).href.replace(/^file:/, "sqlite:");
  const artifactUri = uris.artifactServiceUri ?? pathToFileURL(join(dataDir, "artifacts")).href;
  const memoryUri = uris.memoryServiceUri ?? "memory://";
  if (!uris.sessionServiceUri || !uris.artifactServiceUri) mkdirSync(dataDir, { recursive: true });

  const opened: { close(): Promise<void> }[] = [];
  try {
    // Independent of each other, so opened at once and probed at once: a start waits for the
    // slowest (a backend's modules, a network round trip), not for the sum. Failures are
    // reported in this order, and whatever did open is closed.
    const [sessions, artifacts, memory, credentialsOpened, lock] = await Promise.allSettled([
      createSessionService(sessionUri),
      createArtifactService(artifactUri),
      createMemoryService(memoryUri),
      createCredentialService(sessionUri),
      options.clusterLock ? createSessionLock(sessionUri) : Promise.resolve(undefined),
    ]);
    for (const result of [sessions, artifacts, memory, lock])
      if (result.status === "fulfilled" && result.value) opened.push(result.value);
    if (credentialsOpened.status === "fulfilled") opened.push(credentialsOpened.value.service);
    const sessionService = fulfilled(sessions);
    const artifactService = fulfilled(artifacts);
    const memoryService = fulfilled(memory);
    const credentials = fulfilled(credentialsOpened);
    const sessionLock = fulfilled(lock);
    const probes = await Promise.allSettled([
      probe(
        `session service ${maskUri(sessionUri)}`,
        () => sessionService.listSessions({ appName: "agentkit_probe", userId: "probe" }),
        options.probeTimeoutMs,
      ),
      probe(
        `artifact service ${maskUri(artifactUri)}`,
        () => artifactService.listArtifactKeys({ appName: "agentkit_probe", userId: "probe", sessionId: "probe" }),
        options.probeTimeoutMs,
      ),
      probe(
        `memory service ${maskUri(memoryUri)}`,
        () => memoryService.searchMemory({ appName: "agentkit_probe", userId: "probe", query: "probe" }),
        options.probeTimeoutMs,
      ),
    ]);
    for (const result of probes) fulfilled(result);
    return {
      sessionService,
      artifactService,
      memoryService,
      credentialService: credentials.service,
      ...(sessionLock ? { sessionLock } : {}),
      describe: {
        sessions: maskUri(sessionUri),
        artifacts: maskUri(artifactUri),
        memory: maskUri(memoryUri),
        credentials: credentials.describe,
      },
      close: () => closeAll(opened),
    };
  } catch (error) {
    await closeAll(opened);
    throw error;
  }
}

export async function createSessionService(uri: string): Promise<BaseSessionService> {
  switch (schemeOf(uri, "session", SESSION_SCHEMES)) {
    case "memory":
      return new InMemorySessionService();
    case "sqlite":
      return (await import("@agentkit/sessions/sqlite")).SqliteSessionService.fromUri(uri);
    case "postgres":
    case "postgresql":
      return (await import("@agentkit/sessions/postgres")).PostgresSessionService.fromUri(uri);
    case "mongodb":
    case "mongodb+srv":
      return (await import("@agentkit/sessions/mongodb")).MongoSessionService.fromUri(uri);
    case "agentengine":
      return createManagedSessionService(uri);
    default:
      throw unknownScheme("session", uri, SESSION_SCHEMES);
  }
}

/**
 * The cross-replica session lock of a session store that has one, in the same database:
 * PostgreSQL's advisory locks, MongoDB lease documents. SQLite is one machine's (its process
 * lock suffices with one server); managed sessions have none (docs/deployment.md#several-replicas).
 */
async function createSessionLock(sessionUri: string): Promise<SessionLock | undefined> {
  switch (schemeOf(sessionUri, "session", SESSION_SCHEMES)) {
    case "postgres":
    case "postgresql":
      return new (await import("@agentkit/sessions/postgres")).PostgresSessionLock({ connectionString: sessionUri });
    case "mongodb":
    case "mongodb+srv":
      return new (await import("@agentkit/sessions/mongodb")).MongoSessionLock({ uri: sessionUri });
    default:
      return undefined;
  }
}

export async function createArtifactService(uri: string): Promise<BaseArtifactService> {
  switch (schemeOf(uri, "artifact", ARTIFACT_SCHEMES)) {
    case "memory":
      return new InMemoryArtifactService();
    case "file":
      return (await import("@agentkit/artifacts")).FileArtifactService.fromUri(uri);
    case "s3":
      return (await import("@agentkit/artifacts/s3")).S3ArtifactService.fromUri(uri);
    default:
      throw unknownScheme("artifact", uri, ARTIFACT_SCHEMES);
  }
}

export async function createMemoryService(uri: string): Promise<BaseMemoryService> {
  switch (schemeOf(uri, "memory", MEMORY_SCHEMES)) {
    case "memory":
      return new InMemoryMemoryService();
    case "mongodb":
    case "mongodb+srv":
      return (await import("@agentkit/sessions/mongodb")).MongoMemoryService.fromUri(uri);
    default:
      throw unknownScheme("memory", uri, MEMORY_SCHEMES);
  }
}

/**
 * `agentengine://projects/P/locations/L/reasoningEngines/ID` (the engine may be omitted: each
 * app name is then its engine id). The token comes from GOOGLE_ACCESS_TOKEN (for example
 * `gcloud auth print-access-token`); the base URL may be overridden by
 * AGENTKIT_MANAGED_SESSIONS_BASE_URL.
 */
async function createManagedSessionService(uri: string): Promise<BaseSessionService> {
  const match = /^agentengine:\/\/projects\/([^/]+)\/locations\/([^/]+)(?:\/reasoningEngines\/([^/]+))?\/?$/.exec(uri);
  if (!match) {
    throw new ConfigurationError(
      `Invalid managed session service URI "${uri}": expected ` +
        `agentengine://projects/<project>/locations/<location>[/reasoningEngines/<id>].`,
    );
  }
  const { ManagedSessionService } = await import("@agentkit/sessions/managed");
  const token = process.env.GOOGLE_ACCESS_TOKEN;
  const baseUrl = process.env.AGENTKIT_MANAGED_SESSIONS_BASE_URL;
  return new ManagedSessionService({
    project: match[1]!,
    location: match[2]!,
    ...(match[3] ? { reasoningEngineId: match[3] } : {}),
    ...(token ? { accessToken: token } : {}),
    ...(baseUrl ? { baseUrl } : {}),
  });
}

function schemeOf(uri: string, kind: string, known: string[]): string {
  const match = /^([a-z][a-z0-9+.-]*):/i.exec(uri);
  if (!match)
    throw new ConfigurationError(
      `Invalid ${kind} service URI "${maskUri(uri)}": expected a URI such as ${known.join(", ")}.`,
    );
  return match[1]!.toLowerCase();
}

function unknownScheme(kind: string, uri: string, known: string[]): ConfigurationError {
  return new ConfigurationError(
    `Unknown ${kind} service URI scheme in "${maskUri(uri)}". Supported: ${known.join(", ")}.`,
  );
}

/** Hides a password in `scheme://user:password@host`. */
export function maskUri(uri: string): string {
  return uri.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@]*:)[^@/]*@/i, "$1***@");
}

async function probe(what: string, call: () => Promise<unknown>, timeoutMs = 10_000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      call(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    throw new ConfigurationError(`Cannot use the ${what}: ${(error as Error).message}`, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** A settled result's value, or its error thrown. */
function fulfilled<T>(result: PromiseSettledResult<T>): T {
  if (result.status === "rejected") throw result.reason;
  return result.value;
}

async function closeAll(services: { close(): Promise<void> }[]): Promise<void> {
  await Promise.allSettled(services.reverse().map((s) => s.close()));
}
