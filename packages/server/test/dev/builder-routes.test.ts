import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { InMemoryArtifactService, InMemoryMemoryService, InMemorySessionService } from "@agentkit/core";
import { createAppDevRouters, memoryTelemetryConsent } from "../../src/devtools.js";
import {
  createAgentServer,
  createDirectoryAgentLoader,
  createGraphRouter,
  type AgentLoader,
  type AgentServer,
} from "../../src/index.js";
import { makeAgentsDir, type TempAgentsDir } from "../loader/agents-dir.js";
import { json, recordingLogger } from "../support/test-server.js";

const ROOT =
  "name: pipeline\nmodel: some-model\ndescription: first version\ninstruction: Help.\nsub_agents:\n  - config_path: " +
  "helper.yaml\n";
const TOOLS = `import { FunctionTool } from "@agentkit/core";
import { z } from "zod";
export const x = new FunctionTool({ name: "x", description: "x", parameters: z.object({}), execute: () => ({}) });
export const cb = () => undefined;
`;
const HELPER = "name: helper\nmodel: some-model\ndescription: helps\n";

let agents: TempAgentsDir;
let loader: AgentLoader;
let server: AgentServer;
let url: string;
const logger = recordingLogger();

beforeAll(async () => {
  agents = await makeAgentsDir({
    "pipeline/root_agent.yaml": ROOT,
    "pipeline/helper.yaml": HELPER,
    "pipeline/tools.ts": TOOLS,
  });
  loader = createDirectoryAgentLoader({ agentsDir: agents.dir, reload: true });
  server = createAgentServer({
    loader,
    sessionService: new InMemorySessionService(),
    artifactService: new InMemoryArtifactService(),
    memoryService: new InMemoryMemoryService(),
    mode: "web",
    logger,
  });
  mountAppDevTools(server, loader);
  server.mount(createGraphRouter(server.context));
  ({ url } = await server.listen({ host: "127.0.0.1", port: 0 }));
});
afterAll(async () => {
  await server.close();
  await loader.close?.();
  await agents.cleanup();
});

/** The builder, agent tests and telemetry routers, as `agentkit web` mounts them; whether they were mounted. */
function mountAppDevTools(target: AgentServer, loader: AgentLoader): boolean {
  const routers = createAppDevRouters({ loader, telemetry: memoryTelemetryConsent() });
  return routers.map((router) => target.mountDevTools(router)).every(Boolean);
}

/** POST builder/save with one multipart `files` part per entry (name → YAML text). */
function save(app: string, files: Record<string, string>, query = ""): Promise<Response> {
  const form = new FormData();
  for (const [name, text] of Object.entries(files))
    form.append("files", new Blob([text], { type: "application/x-yaml" }), name);
  return fetch(`${url}/dev/apps/${app}/builder/save${query}`, { method: "POST", body: form });
}
const read = (rel: string) => readFile(join(agents.dir, rel), "utf8");
/** A file the builder saved: its first line is the builder's marker; the rest is the upload. */
const readSaved = async (rel: string) => {
  const [marker, ...rest] = (await read(rel)).split("\n");
  expect(marker).toMatch(/^# agentkit:builder-written /);
  return rest.join("\n");
};
const description = async (app: string) =>
  ((await json(await fetch(`${url}/dev/apps/${app}/build_graph`))).root_agent as { description?: string }).description;

describe("agent builder: GET /dev/apps/{app}/builder", () => {
  it("answers the app's root_agent.yaml as YAML text, never cached", async () => {
    const res = await fetch(`${url}/dev/apps/pipeline/builder?ts=123`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/x-yaml/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(await res.text()).toBe(ROOT);
  });

  it("reads another YAML file with file_path, and answers an empty body for a missing one", async () => {
    expect(await (await fetch(`${url}/dev/apps/pipeline/builder?file_path=helper.yaml`)).text()).toBe(HELPER);
    expect(await (await fetch(`${url}/dev/apps/pipeline/builder?file_path=pipeline/helper.yaml`)).text()).toBe(HELPER);
    const missing = await fetch(`${url}/dev/apps/pipeline/builder?file_path=nope.yaml`);
    expect(missing.status).toBe(200);
    expect(await missing.text()).toBe("");
    const newApp = await fetch(`${url}/dev/apps/brand_new/builder`);
    expect(newApp.status).toBe(200);
    expect(await newApp.text()).toBe("");
  });

  it("refuses paths that leave the app, other extensions and invalid app names with a JSON 400", async () => {
    for (const path of [
      "../other/root_agent.yaml",
      "/etc/passwd.yaml",
      "tools.ts",
      "a/../../x.yaml",
      "a\\..\\..\\x.yaml",
    ]) {
      const res = await fetch(`${url}/dev/apps/pipeline/builder?file_path=${encodeURIComponent(path)}`);
      expect(res.status).toBe(400);
      expect((await json(res)).code).toBe("INVALID_PATH");
    }
    for (const app of ["not-an-app", "node_modules", "_shared"]) {
      const badApp = await fetch(`${url}/dev/apps/${app}/builder`);
      expect(badApp.status).toBe(400);
      expect((await json(badApp)).code).toBe("INVALID_APP_NAME");
    }
  });
});

describe("agent builder: save", () => {
  it("writes the uploaded files and the app reloads on its next request", async () => {
    expect(await description("pipeline")).toBe("first version");
    const edited = ROOT.replace("first version", "second version");
    const res = await save("pipeline", { "pipeline/root_agent.yaml": edited });
    expect(res.status).toBe(200);
    expect(await res.json()).toBe(true);
    expect(await readSaved("pipeline/root_agent.yaml")).toBe(edited);
    expect(await description("pipeline")).toBe("second version");
  });

  it("checks every file first: one bad file and nothing is written (400 naming file and field)", async () => {
    const before = await read("pipeline/root_agent.yaml");
    const res = await save("pipeline", {
      "pipeline/root_agent.yaml": before.replace("second version", "third version"),
      "pipeline/helper.yaml": "name: helper\nmodle: some-model\n",
    });
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body.code).toBe("INVALID_AGENT_CONFIG");
    expect(body.error).toContain("pipeline/helper.yaml");
    expect(body.error).toContain("modle: unknown field");
    expect(await read("pipeline/root_agent.yaml")).toBe(before);
    expect(await read("pipeline/helper.yaml")).toBe(HELPER);
  });

  it("refuses an args key, code outside the agents directory, YAML errors and non-YAML names", async () => {
    const cases: [Record<string, string>, RegExp][] = [
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\ntools:\n  - name: ./tools.ts#x\n    args:\n      a: 1\n" },
        /tools\[0\]\.args: builder uploads may not hold an args key/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\ntools:\n  - some-package#tool\n" },
        /tools: code reference "some-package#tool" names a package: configs written through the agent builder may only reference files of their app folder/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel_code: ../../outside.ts#m\n" },
        /model_code: code reference "..\/..\/outside.ts#m" leaves the agents directory/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\nsub_agents:\n  - config_path: /etc/agent.yaml\n" },
        /config_path "\/etc\/agent.yaml" is an absolute path/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\ncode_executor: UnsafeLocalCodeExecutor\n" },
        /code_executor: the code executor "UnsafeLocalCodeExecutor" is not allowed in configs written through the agent builder/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\nbefore_model_callbacks:\n  - ../.agentkit/x.ts#y\n" },
        /before_model_callbacks: code reference "..\/.agentkit\/x.ts#y" is inside the hidden folder ".agentkit"/,
      ],
      [
        { "pipeline/root_agent.yaml": "name: p\nmodel: m\ntools:\n  - McpToolset\n" },
        /tools: the built-in tool "McpToolset" is not allowed in configs written through the agent builder \(allowed: exit_loop\)/,
      ],
      [{ "pipeline/root_agent.yaml": "name: p\n  model: [\n" }, /YAML syntax error at line/],
      [{ "pipeline/root_agent.yaml": "- a list\n" }, /expected an agent config/],
    ];
    for (const [files, message] of cases) {
      const res = await save("pipeline", files);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toMatch(message);
    }
    for (const name of [
      "pipeline/tools.ts",
      "../escape.yaml",
      "pipeline/tmp/pipeline/x.yaml",
      "pipeline/.github/x.yaml",
    ]) {
      const res = await save("pipeline", { [name]: "name: p\nmodel: m\n" });
      expect(res.status).toBe(400);
      expect((await json(res)).code).toBe("INVALID_PATH");
    }
    expect(await read("pipeline/tools.ts")).toBe(TOOLS);
    expect(existsSync(join(agents.dir, "escape.yaml"))).toBe(false);
  });

  it("accepts code references inside the app folder and built-in names of the builder policy", async () => {
    const config =
      "name: pipeline\nmodel: some-model\ndescription: refs\ntools:\n  - exit_loop\n  - " +
      "./tools.ts#x\nbefore_agent_callbacks:\n  - pipeline.tools.cb\nsub_agents:\n  - config_path: helper.yaml\n";
    const res = await save("pipeline", { "pipeline/root_agent.yaml": config });
    expect(res.status).toBe(200);
    expect(await readSaved("pipeline/root_agent.yaml")).toBe(config);
    expect(await description("pipeline")).toBe("refs");
  });

  it("answers 400 to a body that is not multipart or has no files part", async () => {
    const plain = await fetch(`${url}/dev/apps/pipeline/builder/save`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{}",
    });
    expect(plain.status).toBe(400);
    expect((await json(plain)).code).toBe("INVALID_UPLOAD");
    const form = new FormData();
    form.append("other", "x");
    const noFiles = await fetch(`${url}/dev/apps/pipeline/builder/save`, { method: "POST", body: form });
    expect(noFiles.status).toBe(400);
    expect((await json(noFiles)).error).toMatch(/No `files` part/);
  });

  it("creates a new app, which is then listed and served", async () => {
    const res = await save("made_here", {
      "made_here/root_agent.yaml": "name: made_here\nmodel: some-model\ndescription: built in the UI\n",
    });
    expect(await res.json()).toBe(true);
    expect(await json(await fetch(`${url}/list-apps`))).toContain("made_here");
    expect(await description("made_here")).toBe("built in the UI");
  });
});

describe("agent builder: the draft (tmp=true) and cancel", () => {
  it("keeps edits in the draft until a save without tmp applies them, then drops the draft", async () => {
    const draftDir = join(agents.dir, "pipeline", "tmp", "pipeline");
    const current = await read("pipeline/root_agent.yaml");
    // Reading with tmp=true before any draft save answers the app's file and creates nothing.
    expect(await (await fetch(`${url}/dev/apps/pipeline/builder?tmp=true`)).text()).toBe(current);
    expect(existsSync(join(agents.dir, "pipeline", "tmp"))).toBe(false);

    // The first draft save starts the draft as a copy of the app.
    const draftHelper = "name: helper\nmodel: some-model\ndescription: edited in the draft\n";
    expect(await (await save("pipeline", { "pipeline/helper.yaml": draftHelper }, "?tmp=true")).json()).toBe(true);
    expect(existsSync(join(draftDir, "tools.ts"))).toBe(true);
    expect(await (await fetch(`${url}/dev/apps/pipeline/builder?tmp=true`)).text()).toBe(current);
    expect(await (await fetch(`${url}/dev/apps/pipeline/builder?tmp=true&file_path=helper.yaml`)).text()).toMatch(
      /^# agentkit:builder-written .*\nname: helper\nmodel: some-model\ndescription: edited in the draft\n$/,
    );
    expect(await read("pipeline/helper.yaml")).toBe(HELPER);

    const finalRoot = (await readSaved("pipeline/root_agent.yaml")).replace(
      "description: refs",
      "description: applied",
    );
    expect(await (await save("pipeline", { "pipeline/root_agent.yaml": finalRoot })).json()).toBe(true);
    expect(await readSaved("pipeline/helper.yaml")).toBe(draftHelper);
    expect(await readSaved("pipeline/root_agent.yaml")).toBe(finalRoot);
    expect(existsSync(join(agents.dir, "pipeline", "tmp"))).toBe(false);
    expect(await description("pipeline")).toBe("applied");
  });

  it("cancel drops the draft and leaves the app as it was", async () => {
    const root = await read("pipeline/root_agent.yaml");
    await save(
      "pipeline",
      { "pipeline/root_agent.yaml": "name: pipeline\nmodel: some-model\ndescription: abandoned\n" },
      "?tmp=true",
    );
    const res = await fetch(`${url}/dev/apps/pipeline/builder/cancel`, { method: "POST" });
    expect(await res.json()).toBe(true);
    expect(existsSync(join(agents.dir, "pipeline", "tmp"))).toBe(false);
    expect(await read("pipeline/root_agent.yaml")).toBe(root);
  });
});

describe("dev routes are for web mode", () => {
  const DEV_PATHS = ["/dev/apps/pipeline/builder", "/dev/apps/pipeline/tests", "/config/telemetry"];

  /** A second server over the agents directory, with its own loader; closed by `use` when done. */
  async function withServer(
    mode: "web" | "api",
    use: (target: AgentServer, loader: AgentLoader, url: string) => Promise<void>,
  ): Promise<void> {
    const ownLoader = createDirectoryAgentLoader({ agentsDir: agents.dir });
    const target = createAgentServer({
      loader: ownLoader,
      sessionService: new InMemorySessionService(),
      artifactService: new InMemoryArtifactService(),
      memoryService: new InMemoryMemoryService(),
      mode,
    });
    const { url: targetUrl } = await target.listen({ host: "127.0.0.1", port: 0 });
    try {
      await use(target, ownLoader, targetUrl);
    } finally {
      await target.close();
      await ownLoader.close();
    }
  }

  it("a web-mode server serves them only once mounted: createAgentServer builds no dev router itself", async () => {
    await withServer("web", async (web, webLoader, webUrl) => {
      for (const path of DEV_PATHS) expect((await fetch(`${webUrl}${path}`)).status).toBe(404);
      expect(mountAppDevTools(web, webLoader)).toBe(true);
      for (const path of DEV_PATHS) expect([path, (await fetch(`${webUrl}${path}`)).status]).toEqual([path, 200]);
    });
  });

  it("an api-mode server does not serve the builder, tests or telemetry routes", async () => {
    await withServer("api", async (api, apiLoader, apiUrl) => {
      expect(mountAppDevTools(api, apiLoader)).toBe(false);
      for (const path of DEV_PATHS) {
        const res = await fetch(`${apiUrl}${path}`);
        expect(res.status).toBe(404);
        expect((await json(res)).code).toBe("NOT_FOUND");
      }
    });
    expect(logger.errors).toEqual([]);
  });
});
