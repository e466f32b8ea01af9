// The two chains of the dev tooling security report, end to end against the real `agentkit`
// command: HTTP requests without an Origin (any non-browser client) try to turn data into code
// execution in the server process. Each must end in a 4xx with no file changed and nothing run
// (the payloads write marker files, which must stay absent).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { OFFLINE_ENV, startCli, tempAgentsDir, type CliProcess, type TempAgentsDir } from "./support/cli-process.js";

const ROOT = "name: victim\nmodel: gemini-2.5-flash\ninstruction: Help.\n";
// A developer's own config that runs code in a child process: allowed in files they write.
const DEV_CODER = "name: dev_coder\nmodel: gemini-2.5-flash\ncode_executor: UnsafeLocalCodeExecutor\n";

let agents: TempAgentsDir;
let markers: string;
let cli: CliProcess;
let url: string;

beforeAll(async () => {
  agents = tempAgentsDir("agentkit-devsec-");
  markers = mkdtempSync(join(tmpdir(), "agentkit-devsec-markers-"));
  agents.write("victim/root_agent.yaml", ROOT);
  agents.write("victim/dev_coder.yaml", DEV_CODER);
  // `web` on loopback without authentication: the dev routes are open to this machine, as
  // before. What must hold is that none of them turns a client's data into code.
  cli = startCli(["web", agents.dir, "--port", "0"], OFFLINE_ENV);
  url = await cli.listening(60_000);
}, 90_000);
afterAll(async () => {
  await cli?.stop();
  agents?.remove();
  rmSync(markers, { recursive: true, force: true });
});

async function postJson(path: string, body: unknown, method = "POST"): Promise<Response> {
  return fetch(`${url}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function builderSave(files: Record<string, string>): Promise<Response> {
  const form = new FormData();
  for (const [name, text] of Object.entries(files)) form.append("files", new Blob([text]), name);
  return fetch(`${url}/dev/apps/victim/builder/save`, { method: "POST", body: form });
}

/** Every file of the app folder with its content: what a refused request must leave unchanged. */
function appFiles(): Record<string, string> {
  const dir = join(agents.dir, "victim");
  const out: Record<string, string> = {};
  for (const rel of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, rel);
    try {
      out[rel] = readFileSync(path, "utf8");
    } catch {
      out[rel] = "<dir>";
    }
  }
  return out;
}

describe("chain 1: an artifact's bytes as a module, named by a builder-saved tool reference", () => {
  it("is refused with a 400 naming the field; nothing is written and the module never runs", async () => {
    const marker = join(markers, "module-ran");
    const session = (await (await postJson("/apps/victim/users/u/sessions", {})).json()) as { id: string };
    const module =
      `import { writeFileSync } from "node:fs"; writeFileSync(${JSON.stringify(marker)}, "ran"); export ` +
      `const run = 1;`;
    const saved = await postJson(`/apps/victim/users/u/sessions/${session.id}/artifacts`, {
      filename: "notes.txt",
      artifact: { inlineData: { mimeType: "text/plain", data: Buffer.from(module).toString("base64") } },
    });
    expect(saved.status).toBe(200);
    const data = join(agents.dir, ".agentkit", "artifacts", "victim", "u", session.id, "notes.txt", "0", "data");
    expect(readFileSync(data, "utf8")).toBe(module);
    const before = appFiles();

    const artifactRef = `../.agentkit/artifacts/victim/u/${session.id}/notes.txt/0/data#run`;
    const attempts: [string, RegExp][] = [
      [
        `tools:\n  - ${artifactRef}\n`,
        /^victim\/root_agent\.yaml: tools: code reference .*is inside the hidden folder "\.agentkit"/,
      ],
      [
        `before_agent_callbacks:\n  - ${artifactRef}\n`,
        /before_agent_callbacks: code reference .*hidden folder "\.agentkit"/,
      ],
      [`sub_agents:\n  - code: ${artifactRef}\n`, /sub_agents\[0\]\.code: code reference .*hidden folder "\.agentkit"/],
      ["tools:\n  - node:child_process#execSync\n", /tools: .*names a package/],
      [`tools:\n  - ${data}#run\n`, /tools: .*is an absolute path/],
    ];
    for (const [extra, message] of attempts) {
      const res = await builderSave({ "victim/root_agent.yaml": `${ROOT}${extra}` });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { code: string; error: string };
      expect(body.code).toBe("INVALID_AGENT_CONFIG");
      expect(body.error).toMatch(message);
    }
    expect(appFiles()).toEqual(before);

    // Loading the app (what the chain used to end with) runs only the developer's config.
    const graph = await fetch(`${url}/dev/apps/victim/build_graph`);
    expect(graph.status).toBe(200);
    expect(((await graph.json()) as { root_agent: { name: string } }).root_agent.name).toBe("victim");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("chain 2: builder save of a process-running executor, then an agent test that runs code", () => {
  it("refuses the save (400 naming code_executor); the test replay runs no process", async () => {
    const marker = join(markers, "python-ran");
    const before = appFiles();
    const executor = await builderSave({
      "victim/root_agent.yaml": `${ROOT}code_executor: UnsafeLocalCodeExecutor\n`,
    });
    expect(executor.status).toBe(400);
    expect(((await executor.json()) as { error: string }).error).toMatch(
      /^victim\/root_agent\.yaml: code_executor: the code executor "UnsafeLocalCodeExecutor" is not allowed in configs written through the agent builder: it could run processes on the server/,
    );
    const reference = await builderSave({ "victim/root_agent.yaml": `${ROOT}code_executor: ./x.ts#executor\n` });
    expect(reference.status).toBe(400);
    expect(((await reference.json()) as { error: string }).error).toMatch(/code_executor: a code reference/);
    // Borrowing the developer's own executor config through config_path is refused too.
    const borrowed = await builderSave({
      "victim/root_agent.yaml":
        "agent_class: SequentialAgent\nname: victim\nsub_agents:\n  - config_path: dev_coder.yaml\n",
    });
    expect(borrowed.status).toBe(400);
    expect(((await borrowed.json()) as { error: string }).error).toMatch(
      /sub_agents\[0\]\.config_path: reaches a config the builder's rules refuse: victim\/dev_coder\.yaml: code_executor: the code executor "UnsafeLocalCodeExecutor" is not allowed/,
    );
    expect(appFiles()).toEqual(before);

    // The agent test (saved session data) the chain replays: the "model" answers with code.
    const code = `open(${JSON.stringify(marker)}, "w").write("ran")`;
    const put = await postJson(
      "/dev/apps/victim/tests/pwn",
      {
        session_data: {
          events: [
            { author: "user", content: { role: "user", parts: [{ text: "go" }] } },
            { author: "victim", content: { role: "model", parts: [{ text: `\`\`\`python\n${code}\n\`\`\`` }] } },
          ],
        },
      },
      "PUT",
    );
    expect(put.status).toBe(200);
    const run = await fetch(`${url}/dev/apps/victim/tests/run?test_name=pwn`, { method: "POST" });
    expect(run.status).toBe(200);
    const report = await run.text();
    expect(report).toMatch(/(PASSED|FAILED) victim\/pwn\.json/);
    expect(existsSync(marker)).toBe(false);
  });
});

describe("agentkit api-server", () => {
  it("serves no dev tooling route (builder, tests, telemetry, traces, evals)", async () => {
    const api = startCli(["api-server", agents.dir, "--port", "0"], OFFLINE_ENV);
    try {
      const apiUrl = await api.listening(60_000);
      for (const path of [
        "/dev/apps/victim/builder",
        "/dev/apps/victim/tests",
        "/config/telemetry",
        "/debug/trace/session/s1",
        "/dev/apps/victim/debug/trace/session/s1",
        "/dev/apps/victim/eval_sets",
        "/apps/victim/eval_sets",
      ]) {
        const res = await fetch(`${apiUrl}${path}`);
        expect([path, res.status]).toEqual([path, 404]);
      }
      expect((await fetch(`${apiUrl}/list-apps`)).status).toBe(200);
    } finally {
      await api.stop();
    }
  }, 90_000);
});
