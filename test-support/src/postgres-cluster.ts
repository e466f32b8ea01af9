// A throwaway PostgreSQL cluster (toolchain.md 4a) for tests and benchmarks: initdb into a
// temporary directory, run as the postgres user when we are root (PostgreSQL refuses root),
// listen on 127.0.0.1 on a free port; stop() shuts it down and removes its files. Node built-ins
// and Debian's server binaries only, so any package's tests can use it.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export interface PostgresCluster {
  port: number;
  /** A connection URL for a database of this cluster (default `postgres`). */
  url(database?: string): string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  /** Stops the server and removes its files. */
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  /**
   * Keep fsync and synchronous commit on, as a real server runs (benchmarks). Default false:
   * tests run without them, much faster, and lose nothing they need.
   */
  durable?: boolean;
  /** Prefix of the temporary directory's name. */
  prefix?: string;
}

/** The newest PostgreSQL server binaries installed (Debian layout), or a clear error. */
export function findPostgresBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!newest) {
    throw new Error(
      "PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin: install Debian's postgresql package " +
        "(apt-get install -y postgresql; `pnpm test` does this through scripts/ensure-system-packages.sh).",
    );
  }
  return join(root, newest, "bin");
}

/** A port nothing listens on right now (also for tests that need a refused connection). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** util-linux's runuser: in /usr/sbin, which a non-login root PATH may leave out. */
const RUNUSER = ["/usr/sbin/runuser", "/sbin/runuser"].find((p) => existsSync(p)) ?? "runuser";

/** Starts a cluster; always pair with `stop()` (afterAll, finally). */
export async function startPostgres(options: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const bin = findPostgresBin();
  const dir = mkdtempSync(join(tmpdir(), options.prefix ?? "agentkit-pg-"));
  const data = join(dir, "data");
  const asRoot = userInfo().uid === 0;
  const run = (command: string, args: string[]) =>
    asRoot ? exec(RUNUSER, ["-u", "postgres", "--", join(bin, command), ...args]) : exec(join(bin, command), args);
  const stopServer = () => run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
  let started = false;
  try {
    if (asRoot) {
      // The postgres user must own the directory it writes.
      const uid = Number((await exec("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await exec("id", ["-g", "postgres"])).stdout.trim());
      chownSync(dir, uid, gid);
    }
    await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]);
    const speed = options.durable ? "" : " -c fsync=off -c synchronous_commit=off -c full_page_writes=off";
    let port = 0;
    // Two tries: the probed port can be taken before the server binds it.
    for (let attempt = 0; !started; attempt++) {
      port = await freePort();
      try {
        await run("pg_ctl", [
          "-D",
          data,
          "-l",
          join(dir, "log"),
          "-w",
          "-t",
          "60",
          "-o",
          `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}${speed}`,
          "start",
        ]);
        started = true;
      } catch (error) {
        if (attempt >= 1) throw error;
      }
    }
    const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${encodeURIComponent(database)}`;
    return {
      port,
      url,
      async createDatabase(name) {
        await run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", name]);
        return url(name);
      },
      async stop() {
        try {
          await stopServer();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (started) await stopServer().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start a throwaway PostgreSQL cluster: ${(error as Error).message}`, { cause: error });
  }
}
