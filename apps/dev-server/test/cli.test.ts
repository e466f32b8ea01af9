import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLES_DIR as examples, OFFLINE_ENV, startCli, type CliProcess } from "./support/cli-process.js";

const data = mkdtempSync(join(tmpdir(), "agentkit-cli-"));
const children: CliProcess[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.stop()));
  rmSync(data, { recursive: true, force: true });
});

function start(args: string[]): CliProcess {
  const p = startCli(args, OFFLINE_ENV, "pipe");
  children.push(p);
  return p;
}

describe("agentkit CLI", () => {
  it("web: serves the example agents, answers a run, and shuts down on SIGINT", async () => {
    const p = start([
      "web",
      examples,
      "--port",
      "0",
      "--no-reload",
      "--session-service-uri",
      `sqlite://${join(data, "s.db")}`,
      "--artifact-service-uri",
      `file://${join(data, "artifacts")}`,
    ]);
    const url = await p.listening(30_000);
    expect(p.output()).toMatch(/agents: .*assistant/);
    expect(p.output()).toContain("sessions: sqlite://");
    const apps = (await (await fetch(`${url}/list-apps`)).json()) as string[];
    expect(apps).toEqual(expect.arrayContaining(["assistant", "yaml_pipeline"]));
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
        newMessage: { role: "user", parts: [{ text: "hello" }] },
      }),
    });
    expect(run.status).toBe(200);
    const events = (await run.json()) as { author: string; content?: { parts?: { text?: string }[] } }[];
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).toMatch(/demo/i);
    const graph = await fetch(`${url}/dev/apps/assistant/build_graph`);
    expect(graph.status).toBe(200);
    const trace = (await (
      await fetch(`${url}/dev/apps/assistant/debug/trace/session/${session.id}`)
    ).json()) as unknown[];
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
