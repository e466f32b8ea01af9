// Cold start of the `agentkit api-server` command as a user runs it: spawn
// `node apps/dev-server/bin/agentkit.mjs api-server examples/agents --port 0` → the startup
// banner (listening) → a session created and a first `/run` of the `assistant` example
// answered by its offline demo model. Each configuration runs `--runs` times (default 7),
// interleaved, and reports median / min / max, plus the child's own phases (bin/agentkit.mjs
// with AGENTKIT_STARTUP_TIMING=1: Node bootstrap, module hooks ready, CLI modules loaded,
// listening).
// Usage: pnpm bench:cold-start [-- --runs 7]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg("runs", 7);
const root = fileURLToPath(new URL("../../", import.meta.url));
const bin = join(root, "apps/dev-server/bin/agentkit.mjs");
const agentsDir = join(root, "examples/agents");
const distBuilt = [
  "packages/core/dist/index.js",
  "packages/server/dist/index.js",
  "apps/dev-server/dist/main.js",
].every((file) => existsSync(join(root, file)));

interface Config {
  name: string;
  env: Record<string, string>;
  services: (dataDir: string) => string[];
}

const inMemory = () => ["--session-service-uri", "memory://", "--artifact-service-uri", "memory://"];
const onDisk = (dir: string) => [
  "--session-service-uri",
  `sqlite://${join(dir, "sessions.db")}`,
  "--artifact-service-uri",
  `file://${join(dir, "artifacts")}`,
];
const CONFIGS: Config[] = [
  { name: "sources + tsx, in-memory services", env: {}, services: inMemory },
  { name: "sources + tsx, SQLite + file services (the defaults)", env: {}, services: onDisk },
  ...(distBuilt
    ? [
        {
          name: "built dist, no tsx (AGENTKIT_RUNTIME=dist), in-memory",
          env: { AGENTKIT_RUNTIME: "dist" },
          services: inMemory,
        },
      ]
    : []),
];

interface Sample {
  listening: number;
  firstAnswer: number;
  phases: Record<string, number>;
}

async function once(config: Config): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), "agentkit-cold-"));
  // No model keys: the examples then run on their offline demo model.
  const env = {
    ...process.env,
    GOOGLE_API_KEY: "",
    GEMINI_API_KEY: "",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: "",
    OLLAMA_HOST: "",
    AGENTKIT_EXAMPLE_MODEL: "",
    AGENTKIT_STARTUP_TIMING: "1",
    ...config.env,
  };
  const t0 = performance.now();
  const child = spawn(process.execPath, [bin, "api-server", agentsDir, "--port", "0", ...config.services(dataDir)], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  try {
    let out = "";
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        const m = / on (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.once("exit", (code) => reject(new Error(`agentkit exited with ${code}: ${out}${err}`)));
    });
    const listening = performance.now() - t0;
    const session = (await (await fetch(`${url}/apps/assistant/users/u/sessions`, { method: "POST" })).json()) as {
      id: string;
    };
    const run = await fetch(`${url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        appName: "assistant",
        userId: "u",
        sessionId: session.id,
        newMessage: { role: "user", parts: [{ text: "hi" }] },
      }),
    });
    const events = (await run.json()) as { content?: unknown }[];
    if (run.status !== 200 || !JSON.stringify(events).includes("demo"))
      throw new Error(`unexpected first answer: ${run.status} ${JSON.stringify(events).slice(0, 200)}`);
    const firstAnswer = performance.now() - t0;
    const phases: Record<string, number> = {};
    for (const m of err.matchAll(/(node bootstrap|hooks ready \(\w+\)|modules loaded|listening) (\d+) ms/g))
      phases[m[1]!.replace(/ \(\w+\)/, "")] = Number(m[2]);
    return { listening, firstAnswer, phases };
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const range = (xs: number[]) =>
  `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)})`;

async function main(): Promise<void> {
  console.log(
    `agentkit api-server cold start, Node ${process.version}, ${new Date().toISOString()}, ${RUNS} runs per ` +
      `configuration (interleaved)`,
  );
  if (!distBuilt) console.log("(no built dist: run `pnpm build` to measure AGENTKIT_RUNTIME=dist too)");
  // One throw-away run per configuration: tsx's transform cache and the OS file cache warm up.
  for (const config of CONFIGS) await once(config);
  const samples = new Map<Config, Sample[]>(CONFIGS.map((c) => [c, []]));
  for (let i = 0; i < RUNS; i++) for (const config of CONFIGS) samples.get(config)!.push(await once(config));
  console.log("\nms, median (min-max)");
  console.log(
    "| configuration | spawn → listening | spawn → first /run answered | in the child: Node bootstrap / hooks ready " +
      "/ modules loaded / listening |",
  );
  console.log("| --- | ---: | ---: | --- |");
  for (const config of CONFIGS) {
    const xs = samples.get(config)!;
    const phase = (k: string) => median(xs.map((s) => s.phases[k] ?? NaN)).toFixed(0);
    console.log(
      `| ${config.name} | ${range(xs.map((s) => s.listening))} | ${range(xs.map((s) => s.firstAnswer))} | ` +
        `${phase("node bootstrap")} / ${phase("hooks ready")} / ${phase("modules loaded")} / ${phase("listening")} |`,
    );
  }
}

await main();
