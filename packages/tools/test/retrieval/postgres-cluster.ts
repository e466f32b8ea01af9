// A throwaway PostgreSQL cluster for tests (toolchain.md 4a, as in packages/sessions' fixture):
// initdb into a temporary directory, run as the postgres user when we are root, listen on
// 127.0.0.1 on a free port; stop() shuts it down and removes its files.
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";

const exec = promisify(execFile);

export interface PostgresCluster {
  port: number;
  url(database?: string): string;
  /** Creates a database and returns its URL. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

function serverBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  if (!newest) throw new Error("No PostgreSQL server under /usr/lib/postgresql/*/bin: apt-get install -y postgresql (see docs/toolchain.md).");
  return join(root, newest, "bin");
}

/** A port nothing listens on right now (also used by tests that need a refused connection). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** Starts a cluster; pair with `stop()` in afterAll. */
export async function startPostgres(): Promise<PostgresCluster> {
  const bin = serverBin();
  const dir = mkdtempSync(join(tmpdir(), "agentkit-tools-pg-"));
  const data = join(dir, "data");
  // PostgreSQL refuses to run as root: use the postgres user, who must own the directory.
  const asRoot = userInfo().uid === 0;
  const run = (command: string, args: string[]) =>
    asRoot ? exec("runuser", ["-u", "postgres", "--", join(bin, command), ...args]) : exec(join(bin, command), args);
  let started = false;
  try {
    if (asRoot) {
      const uid = Number((await exec("id", ["-u", "postgres"])).stdout.trim());
      const gid = Number((await exec("id", ["-g", "postgres"])).stdout.trim());
      chownSync(dir, uid, gid);
    }
    await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]);
    let port = 0;
    // The probed port can be taken before the server binds it: one retry.
    for (let attempt = 0; !started; attempt++) {
      port = await freePort();
      const settings = `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
      try {
        await run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-t", "60", "-o", settings, "start"]);
        started = true;
      } catch (error) {
        if (attempt >= 1) throw error;
      }
    }
    const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
    return {
      port,
      url,
      async createDatabase(name) {
        const client = new pg.Client({ connectionString: url() });
        await client.connect();
        try {
          await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
        } finally {
          await client.end();
        }
        return url(name);
      },
      async stop() {
        try {
          await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    if (started) await run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"]).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`Could not start a throwaway PostgreSQL cluster: ${(error as Error).message}`, { cause: error });
  }
}
