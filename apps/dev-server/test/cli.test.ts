import { afterAll, describe, expect, it } from "@jest/globals";
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bin = fileURLToPath(new URL("../bin/agentkit.mjs", import.meta.url));
const examples = fileURLToPath(new URL("../../../examples/agents", import.meta.url));
const data = mkdtempSync(join(tmpdir(), "agentkit-cli-"));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  rmSync(data, { recursive: true, force: true });
});

// The examples' demo model answers offline; keep real keys out of the child.
const env = { ...process.env, OPENAI_API_KEY: "", ANTHROPIC_API_KEY: "", OLLAMA_HOST: "", GOOGLE_API_KEY: "", GEMINI_API_KEY: "", AGENTKIT_EXAMPLE_MODEL: "" };

function start(args: string[]) {
  const child = spawn(process.execPath, [bin, ...args], { env, stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => out, errors: () => err, exited };
}

async function waitFor(check: () => RegExpMatchArray | null, what: () => string, ms = 30_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + ms;
  for (;;) {
    const m = check();
    if (m) return m;
    if (Date.now() > deadline) throw new Error(`timed out waiting; output so far:\n${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("agentkit CLI", () => {
  it("web: serves the example agents, answers a run, and shuts down on SIGINT", async () => {
    const p = start(["web", examples, "--port", "0", "--no-reload", "--session-service-uri", `sqlite://${join(data, "s.db")}`, "--artifact-service-uri", `file://${join(data, "artifacts")}`]);
    const [, url] = await waitFor(() => p.output().match(/on (http:\/\/127\.0\.0\.1:\d+)/), () => p.output() + p.errors());
    expect(p.output()).toMatch(/agents: .*assistant/);
    expect(p.output()).toContain("sessions: sqlite://");
    const apps = (await (await fetch(`${url}/list-apps`)).json()) as string[];
    expect(apps).toEqual(expect.arrayContaining(["assistant", "yaml_pipeline"]));
    const session = (await (await fetch(`${url}/apps/assistant/users/u/sessions`, { method: "POST" })).json()) as { id: string };
    const run = await fetch(`${url}/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ appName: "assistant", userId: "u", sessionId: session.id, newMessage: { role: "user", parts: [{ text: "hello" }] } }),
    });
    expect(run.status).toBe(200);
    const events = (await run.json()) as { author: string; content?: { parts?: { text?: string }[] } }[];
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).toMatch(/demo/i);
    const graph = await fetch(`${url}/dev/apps/assistant/build_graph`);
    expect(graph.status).toBe(200);
    const trace = (await (await fetch(`${url}/dev/apps/assistant/debug/trace/session/${session.id}`)).json()) as unknown[];
    expect(trace.length).toBeGreaterThan(0);
    expect((await fetch(`${url}/dev/apps/assistant/eval_sets`)).status).toBe(200);
    p.child.kill("SIGINT");
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain("shutting down");
  });

  it("web: a bad service URI fails at start with a clear message and exit code 1", async () => {
    const p = start(["web", examples, "--port", "0", "--session-service-uri", "redis://localhost"]);
    expect(await p.exited).toBe(1);
    expect(p.errors()).toMatch(/Unknown session service URI scheme in "redis:\/\/localhost"/);
  });

  it("usage errors exit 2, help exits 0", async () => {
    const bad = start(["serve"]);
    expect(await bad.exited).toBe(2);
    expect(bad.errors()).toMatch(/Unknown command "serve"/);
    const help = start(["help"]);
    expect(await help.exited).toBe(0);
    expect(help.output()).toContain("agentkit web [agents_dir]");
  });

  it("run: chats with one agent over piped input", async () => {
    const p = start(["run", join(examples, "assistant")]);
    p.child.stdin!.end("hello there\n");
    expect(await p.exited).toBe(0);
    expect(p.output()).toContain("you> hello there");
    expect(p.output()).toMatch(/assistant> .+/);
  });
});
