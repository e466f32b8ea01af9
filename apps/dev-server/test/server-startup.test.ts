// bin/agentkit.mjs start-up: one process, the timing report, and the two runtimes.
import { afterAll, describe, expect, it } from "@jest/globals";
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  AGENTKIT_BIN as bin,
  EXAMPLES_DIR as examples,
  askOnce,
  OFFLINE_ENV,
  startCli,
  tempAgentsDir,
  waitFor,
  type CliProcess,
} from "./support/cli-process.js";

const builtCore = fileURLToPath(new URL("../../../packages/core/dist/index.js", import.meta.url));
const children: CliProcess[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
});

function start(args: string[], env: Record<string, string>): CliProcess {
  const p = startCli(args, { ...OFFLINE_ENV, ...env });
  children.push(p);
  return p;
}

const listening = (p: CliProcess) => p.listening();

/** A session and a first `/run` of `app`, answered 200: the events as JSON text. */
async function firstAnswer(url: string, app = "assistant"): Promise<string> {
  const { status, body } = await askOnce(url, app);
  expect(status).toBe(200);
  return JSON.stringify(body);
}

/** `agentkit api-server <dir>` on a free port with in-memory services. */
const serveArgsFor = (dir: string) => [
  "api-server",
  dir,
  "--port",
  "0",
  "--session-service-uri",
  "memory://",
  "--artifact-service-uri",
  "memory://",
];
const serveArgs = serveArgsFor(examples);

describe("agentkit start-up", () => {
  it("AGENTKIT_STARTUP_TIMING=1 reports the start-up phases in order, in one process", async () => {
    const p = start(serveArgs, { AGENTKIT_STARTUP_TIMING: "1" });
    const url = await listening(p);
    expect(await firstAnswer(url)).toMatch(/demo/i);
    const m =
      /agentkit startup: node bootstrap (\d+) ms, hooks ready \(source\) (\d+) ms, modules loaded (\d+) ms, listening (\d+) ms/.exec(
        p.errors(),
      );
    expect(m).not.toBeNull();
    const [bootstrap, hooks, modules, listen] = m!.slice(1).map(Number) as [number, number, number, number];
    expect(bootstrap).toBeLessThanOrEqual(hooks);
    expect(hooks).toBeLessThanOrEqual(modules);
    expect(modules).toBeLessThanOrEqual(listen);
    // One process: no child at all (the source runtime compiles in-thread; only the tsx runtime
    // may start esbuild's service).
    const ps = spawn("ps", ["--ppid", String(p.child.pid), "-o", "comm="]);
    let kids = "";
    ps.stdout.on("data", (d: Buffer) => (kids += d.toString()));
    await new Promise((r) => ps.once("exit", r));
    const children = kids
      .split("\n")
      .map((c) => c.trim())
      .filter(Boolean);
    expect(children).toEqual([]);
  });

  it("AGENTKIT_RUNTIME=tsx serves from the sources through tsx", async () => {
    const p = start(serveArgs, { AGENTKIT_RUNTIME: "tsx", AGENTKIT_STARTUP_TIMING: "1" });
    const url = await listening(p);
    expect(await firstAnswer(url)).toMatch(/demo/i);
    expect(p.errors()).toContain("hooks ready (tsx)");
  });

  it("an unknown AGENTKIT_RUNTIME is a usage error (exit 2)", async () => {
    const p = start(["help"], { AGENTKIT_RUNTIME: "bogus" });
    expect(await p.exited).toBe(2);
    expect(p.errors()).toContain('AGENTKIT_RUNTIME must be "source", "tsx" or "dist", got "bogus"');
  });

  // The test task depends on `build` (turbo.json), so the built packages and CLI exist here.
  it("AGENTKIT_RUNTIME=dist serves from the built packages and CLI, without tsx", async () => {
    expect(existsSync(builtCore)).toBe(true);
    const p = start(serveArgs, { AGENTKIT_RUNTIME: "dist", AGENTKIT_STARTUP_TIMING: "1" });
    const url = await listening(p);
    expect(await firstAnswer(url)).toMatch(/demo/i);
    expect(p.errors()).toContain("hooks ready (dist)");
  });

  it("AGENTKIT_RUNTIME=dist without a build says to build first (exit 2)", async () => {
    // A copy of the bin where ../dist does not exist.
    const dir = mkdtempSync(join(tmpdir(), "agentkit-nobuild-"));
    try {
      const copy = join(dir, "apps", "dev-server", "bin", "agentkit.mjs");
      mkdirSync(dirname(copy), { recursive: true });
      copyFileSync(bin, copy);
      const child = spawn(process.execPath, [copy, "help"], {
        env: { ...process.env, AGENTKIT_RUNTIME: "dist" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let err = "";
      child.stderr.on("data", (d: Buffer) => (err += d.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(2);
      expect(err).toContain("AGENTKIT_RUNTIME=dist needs the built packages; run `pnpm build` first.");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers from the start and warms up between requests: an app still loading holds back only itself", async () => {
    // "b_slow" does not finish loading until the test creates the gate file; "a_fast" is ready.
    const agents = tempAgentsDir("agentkit-warm-after-listen-");
    const gate = join(agents.dir, "gate");
    const fixed = (name: string) =>
      `import { BaseLlm, LlmAgent, type LlmResponse } from "@agentkit/core";
class Fixed extends BaseLlm {
  async *generateContentAsync(): AsyncGenerator<LlmResponse, void, void> {
    yield { content: { role: "model", parts: [{ text: "${name} answers" }] } };
  }
}
export const rootAgent = new LlmAgent({ name: "${name}", model: new Fixed({ model: "fixed" }), instruction: "Hi." });
`;
    agents.write("a_fast/agent.ts", fixed("a_fast"));
    agents.write(
      "b_slow/agent.ts",
      `import { existsSync } from "node:fs";
await new Promise<void>((resolve) => {
  const poll = setInterval(() => existsSync(${JSON.stringify(gate)}) && (clearInterval(poll), resolve()), 20);
});
${fixed("b_slow")}`,
    );
    try {
      const p = start(serveArgsFor(agents.dir), {});
      const url = await listening(p);
      expect(p.output()).toMatch(/agents: .*\(a_fast, b_slow\), warming up/);
      // The warm-up cannot end before the gate exists, and the server answers meanwhile.
      expect(await firstAnswer(url, "a_fast")).toContain("a_fast answers");
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      expect(p.output()).not.toContain("warmed up");
      writeFileSync(gate, "");
      await waitFor(
        () => /agentkit: warmed up in \d+ ms/.exec(p.output()),
        () => p.output() + p.errors(),
      );
      expect(await firstAnswer(url, "b_slow")).toContain("b_slow answers");
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
    } finally {
      agents.remove();
    }
  });

  it("imports no package of tools no config names: @agentkit/tools stays unloaded through the warm-up", async () => {
    // A module hook in the CLI's process records every module it resolves, written out at exit.
    const dir = mkdtempSync(join(tmpdir(), "agentkit-loaded-modules-"));
    const record = join(dir, "record.mjs");
    const loaded = join(dir, "loaded.txt");
    writeFileSync(
      record,
      `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = new Set();
registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.add(r.url); return r; } });
process.on("exit", () => writeFileSync(${JSON.stringify(loaded)}, [...seen].join("\\n")));
`,
    );
    try {
      const p = start(serveArgs, { NODE_OPTIONS: `--import ${pathToFileURL(record).href}` });
      const url = await listening(p);
      expect(await firstAnswer(url)).toMatch(/demo/i);
      await waitFor(
        () => /agentkit: warmed up in \d+ ms/.exec(p.output()),
        () => p.output() + p.errors(),
      );
      await p.stop();
      const urls = readFileSync(loaded, "utf8").split("\n");
      // The recorder saw the CLI's own packages (so an absence below means something)...
      expect(urls.some((u) => u.includes("/packages/server/"))).toBe(true);
      expect(urls.some((u) => u.includes("/examples/agents/yaml_pipeline/"))).toBe(true);
      // ...and nothing of @agentkit/tools: no example config names one of its tools.
      expect(urls.filter((u) => u.includes("/packages/tools/"))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
