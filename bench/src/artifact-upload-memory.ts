// Peak memory of artifact uploads: POST .../artifacts with an inlineData payload (base64 in a
// JSON body, as clients send it) to @agentkit/server on FileArtifactService, N at once. Each
// scenario runs in a fresh server process (peak RSS only grows): the figure is the peak RSS
// during the uploads minus the RSS before them, per MiB of JSON body in flight.
// Usage: pnpm --filter @agentkit/bench run bench:artifact-memory [-- --mib 12 --concurrency 4]
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const MIB = 1024 * 1024;

// ---- child process: the server ------------------------------------------------------------

async function serve(): Promise<void> {
  const { FileArtifactService } = await import("@agentkit/artifacts");
  const { InMemoryMemoryService, InMemorySessionService, LlmAgent } = await import("@agentkit/core");
  const { createAgentServer, createStaticAgentLoader } = await import("@agentkit/server");
  const { InstantModel } = await import("./instant-model.js");
  const dir = await mkdtemp(join(tmpdir(), "agentkit-bench-artifacts-"));
  // The parent asks over IPC; maxRSS is in KiB, the peak since the process started.
  process.on("message", () => {
    process.send?.({ rss: process.memoryUsage().rss, peak: process.resourceUsage().maxRSS * 1024 });
  });
  const server = createAgentServer({
    loader: createStaticAgentLoader({
      apps: { bench: new LlmAgent({ name: "bench_agent", model: new InstantModel() }) },
    }),
    sessionService: new InMemorySessionService(),
    artifactService: new FileArtifactService({ rootDir: dir }),
    memoryService: new InMemoryMemoryService(),
    bodyLimit: "100mb",
    limits: { maxBodyBytesInFlight: 1024 * MIB },
  });
  const { url } = await server.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(`LISTENING ${url}\n`);
  process.once("SIGTERM", () => {
    void server.close().then(() => rm(dir, { recursive: true, force: true }).then(() => process.exit(0)));
  });
}

// ---- parent: the load --------------------------------------------------------------------

function memory(child: ChildProcess): Promise<{ rss: number; peak: number }> {
  return new Promise((resolve) => {
    child.once("message", (m) => resolve(m as { rss: number; peak: number }));
    child.send("memory?");
  });
}

async function scenario(rawMib: number, concurrency: number): Promise<void> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--serve"], {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      const match = /LISTENING (\S+)/.exec(chunk.toString());
      if (match) resolve(match[1]!);
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
  try {
    const body = JSON.stringify({
      filename: "upload.bin",
      artifact: {
        inlineData: { mimeType: "application/octet-stream", data: Buffer.alloc(rawMib * MIB, 7).toString("base64") },
      },
    });
    const save = (i: number) =>
      fetch(`${url}/apps/bench/users/u/sessions/s${i}/artifacts`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      }).then((r) => r.status);
    // One small save first, so the code paths are loaded before the baseline.
    await fetch(`${url}/apps/bench/users/u/sessions/warm/artifacts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ filename: "w", artifact: { text: "warm" } }),
    });
    const before = await memory(child);
    const statuses = await Promise.all(Array.from({ length: concurrency }, (_, i) => save(i)));
    const after = await memory(child);
    const bodyMib = Buffer.byteLength(body) / MIB;
    const growth = (after.peak - before.rss) / MIB;
    console.log(
      `| ${concurrency} × ${bodyMib.toFixed(1)} MiB | ${(before.rss / MIB).toFixed(0)} ` +
        `| ${(after.peak / MIB).toFixed(0)} | ${growth.toFixed(0)} ` +
        `| ${(growth / (bodyMib * concurrency)).toFixed(2)} | ${statuses.join(" ")} |`,
    );
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

if (process.argv.includes("--serve")) {
  await serve();
} else {
  const mib = arg("mib", 12);
  const concurrency = arg("concurrency", 4);
  console.log("| uploads (JSON body) | RSS before MiB | peak RSS MiB | growth MiB | growth per body MiB | statuses |");
  console.log("| --- | ---: | ---: | ---: | ---: | --- |");
  await scenario(mib, 1);
  await scenario(mib, concurrency);
}
