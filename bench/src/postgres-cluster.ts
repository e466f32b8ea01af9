// A throwaway PostgreSQL cluster for the session benchmark (the recipe of toolchain.md 4a):
// initdb into a temporary directory, started as the postgres user on 127.0.0.1, removed by stop().
import { execFile } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const exec = promisify(execFile);

export interface BenchPostgres {
  url: string;
  stop(): Promise<void>;
}

export async function startBenchPostgres(): Promise<BenchPostgres> {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))).sort((a, b) => Number(a) - Number(b)) : [];
  const version = versions[versions.length - 1];
  if (!version) throw new Error("PostgreSQL binaries not found under /usr/lib/postgresql: apt-get install -y postgresql, or set AGENTKIT_BENCH_POSTGRES_URL.");
  const bin = join(root, version, "bin");
  const asRoot = userInfo().uid === 0;
  const run = (cmd: string, args: string[]) => (asRoot ? exec("runuser", ["-u", "postgres", "--", join(bin, cmd), ...args]) : exec(join(bin, cmd), args));
  const dir = mkdtempSync(join(tmpdir(), "agentkit-bench-pg-"));
  if (asRoot) chownSync(dir, Number((await exec("id", ["-u", "postgres"])).stdout), Number((await exec("id", ["-g", "postgres"])).stdout));
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });
  const data = join(dir, "data");
  await run("initdb", ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"]);
  // Durable settings (unlike the tests' fsync=off), so the figures are what a real server costs.
  await run("pg_ctl", ["-D", data, "-l", join(dir, "log"), "-w", "-o", `-c listen_addresses=127.0.0.1 -p ${port} -k ${dir}`, "start"]);
  await run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "bench"]);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/bench`,
    async stop() {
      await run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
