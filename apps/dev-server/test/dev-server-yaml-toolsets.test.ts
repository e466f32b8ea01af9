// YAML agents naming the @agentkit/tools toolsets by ADK's class names (OpenAPIToolset,
// ApplicationIntegrationToolset, ComputerUseToolset, VertexAiRagRetrieval), loaded through the
// real directory loader with the dev server's tool map and run with a scripted model.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryRunner, LlmAgent, ModelRegistry, type BaseToolset, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { createDirectoryAgentLoader } from "@agentkit/server";
import { devServerBuiltInTools } from "../src/dev-server-tools.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-yaml-toolsets-"));
const received: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let base = "";

beforeAll(async () => {
  server = createServer((req, res) => {
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const id = /^\/v1\/pets\/([^/?]+)$/.exec(req.url ?? "")?.[1];
    if (req.method === "GET" && id)
      return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ id, name: "Rex" }));
    res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "not found" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});

function app(name: string, yaml: string): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, "root_agent.yaml"), yaml);
}

/** A two-operation OpenAPI document served by the local server. */
const petSpec = () =>
  JSON.stringify({
    openapi: "3.0.3",
    info: { title: "pets", version: "1" },
    servers: [{ url: `${base}/v1` }],
    paths: {
      "/pets/{petId}": {
        get: {
          operationId: "getPet",
          summary: "Get one pet.",
          parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        },
        delete: {
          operationId: "deletePet",
          parameters: [{ name: "petId", in: "path", required: true, schema: { type: "string" } }],
        },
      },
    },
  });

describe("dev server YAML tool names for the @agentkit/tools toolsets", () => {
  it("runs a YAML agent naming OpenAPIToolset with an inline spec: the model's call reaches the HTTP server and the response comes back as an event", async () => {
    app(
      "pets_app",
      `name: pets_agent
model: scripted-pets
instruction: Answer questions about pets with the API.
tools:
  - name: OpenAPIToolset
    args:
      spec_str: ${JSON.stringify(petSpec())}
      spec_str_type: json
      auth: { type: bearer, token: yaml-token }
      headers: { X-Agent: pets }
      tool_filter: [get_pet]
`,
    );
    const model = new ScriptedModel({
      model: "scripted-pets",
      steps: [ScriptedModel.functionCall("get_pet", { petId: "p-7" }, "call-1"), ScriptedModel.text("Pet p-7 is Rex.")],
    });
    const modelRegistry = new ModelRegistry().register("scripted-pets", () => model);
    const loader = createDirectoryAgentLoader({
      agentsDir: dir,
      reload: false,
      modelRegistry,
      builtInTools: devServerBuiltInTools(),
    });
    const before = received.length;
    try {
      const loaded = await loader.loadApp("pets_app");
      expect(loaded.rootAgent).toBeInstanceOf(LlmAgent);
      const runner = new InMemoryRunner({ agent: loaded.rootAgent, appName: "pets_app", modelRegistry });
      try {
        const session = await runner.sessionService.createSession({ appName: "pets_app", userId: "u" });
        const events: Event[] = [];
        const newMessage = { role: "user", parts: [{ text: "Who is pet p-7?" }] };
        for await (const event of runner.runAsync({ userId: "u", sessionId: session.id, newMessage }))
          events.push(event);

        // The filter left one tool; the model was offered it with its schema.
        expect(model.requests[0]!.toolNames).toEqual(["get_pet"]);
        // The HTTP server received the call, with the configured auth and headers.
        expect(received.slice(before)).toEqual([expect.objectContaining({ method: "GET", url: "/v1/pets/p-7" })]);
        expect(received.at(-1)!.headers.authorization).toBe("Bearer yaml-token");
        expect(received.at(-1)!.headers["x-agent"]).toBe("pets");
        // The tool response event carries the API's answer, and the model saw it.
        const responseEvent = events.find((e) => e.content?.parts?.some((p) => p.functionResponse));
        expect(responseEvent?.content?.parts?.[0]?.functionResponse).toMatchObject({
          name: "get_pet",
          id: "call-1",
          response: { id: "p-7", name: "Rex" },
        });
        const seen = model.requests[1]!.contents.flatMap((c) => c.parts ?? []).find(
          (p) => p.functionResponse,
        )?.functionResponse;
        expect(seen?.response).toEqual({ id: "p-7", name: "Rex" });
        expect(events.at(-1)?.content?.parts?.[0]?.text).toBe("Pet p-7 is Rex.");
        model.assertConsumed();
      } finally {
        await runner.close();
      }
    } finally {
      await loader.close();
    }
  }, 60_000);

  it("also accepts OpenApiToolset, ComputerUseToolset and VertexAiRagRetrieval (built without starting a browser or calling Google)", async () => {
    app(
      "many_app",
      `name: many_agent
model: gemini-2.5-flash
tools:
  - name: OpenApiToolset
    args: { spec_str: ${JSON.stringify(petSpec())}, tool_name_prefix: pets }
  - name: ComputerUseToolset
    args: { viewport: { width: 800, height: 600 }, tool_filter: [navigate, click_at] }
  - name: VertexAiRagRetrieval
    args:
      name: search_docs
      rag_corpora: [projects/p/locations/us-central1/ragCorpora/1]
      similarity_top_k: 3
`,
    );
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      const agent = (await loader.loadApp("many_app")).rootAgent as LlmAgent;
      const [openApi, computer, rag] = agent.tools as [
        BaseToolset,
        BaseToolset,
        { name: string; vertexRagStore: unknown },
      ];
      expect((await openApi.getTools()).map((t) => t.name)).toEqual(["pets_get_pet", "pets_delete_pet"]);
      try {
        expect((await computer.getTools()).map((t) => t.name).sort()).toEqual(["click_at", "navigate"]);
      } finally {
        await computer.close();
      }
      expect(rag.name).toBe("search_docs");
      expect(rag.vertexRagStore).toEqual({
        ragResources: [{ ragCorpus: "projects/p/locations/us-central1/ragCorpora/1" }],
        similarityTopK: 3,
      });
    } finally {
      await loader.close();
    }
  }, 60_000);

  it("resolves a relative spec_path against the folder of the YAML file, not the working directory", async () => {
    app(
      "spec_file_app",
      "name: spec_file_agent\nmodel: gemini-2.5-flash\ntools:\n  - name: OpenAPIToolset\n    args: { spec_path: " +
        "specs/pets.json }\n",
    );
    mkdirSync(join(dir, "spec_file_app", "specs"), { recursive: true });
    writeFileSync(join(dir, "spec_file_app", "specs", "pets.json"), petSpec());
    expect(process.cwd()).not.toBe(join(dir, "spec_file_app"));
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      const agent = (await loader.loadApp("spec_file_app")).rootAgent as LlmAgent;
      const [openApi] = agent.tools as [BaseToolset];
      expect((await openApi.getTools()).map((t) => t.name)).toEqual(["get_pet", "delete_pet"]);
    } finally {
      await loader.close();
    }
  });

  it("loads SkillToolset from skill folders next to the YAML file (skills_dir discovery)", async () => {
    app(
      "skills_app",
      "name: skills_agent\nmodel: gemini-2.5-flash\ntools:\n  - name: SkillToolset\n    args: { skills_dir: skills }\n",
    );
    mkdirSync(join(dir, "skills_app", "skills", "release-notes"), { recursive: true });
    writeFileSync(
      join(dir, "skills_app", "skills", "release-notes", "SKILL.md"),
      "---\nname: release-notes\ndescription: Writes release notes.\n---\nGroup changes by package.\n",
    );
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      const agent = (await loader.loadApp("skills_app")).rootAgent as LlmAgent;
      const [skills] = agent.tools as [BaseToolset & { skills: Record<string, unknown> }];
      expect(Object.keys(skills.skills)).toEqual(["release-notes"]);
      expect((await skills.getTools()).map((t) => t.name)).toContain("load_skill");
    } finally {
      await loader.close();
    }
  });

  it("reports bad args of each toolset as a load error naming the file and the field", async () => {
    const cases: [string, string, RegExp][] = [
      [
        "bad_openapi",
        "name: OpenAPIToolset\n    args: { spec_str_type: json }",
        /exactly one of spec_str, spec_dict or spec_path/,
      ],
      [
        "bad_integration",
        "name: ApplicationIntegrationToolset\n    args: { project: p, location: l, integration: i, auth_scheme: {} }",
        /auth_scheme: not supported/,
      ],
      [
        "bad_computer",
        "name: ComputerUseToolset\n    args: { environment: ENVIRONMENT_UNSPECIFIED }",
        /environment: only ENVIRONMENT_BROWSER/,
      ],
      [
        "bad_rag",
        "name: VertexAiRagRetrieval\n    args: { rag_corpora: [corpus-1] }",
        /rag_corpora\.0: a full resource name/,
      ],
    ];
    const loader = createDirectoryAgentLoader({ agentsDir: dir, reload: false, builtInTools: devServerBuiltInTools() });
    try {
      for (const [name, tool, problem] of cases) {
        app(name, `name: ${name}\nmodel: gemini-2.5-flash\ntools:\n  - ${tool}\n`);
        const error = await loader.loadApp(name).then(
          () => undefined,
          (e: unknown) => e as Error,
        );
        expect(error?.message).toMatch(new RegExp(`${name}[\\\\/]root_agent\\.yaml.*tools\\[0\\]\\.name`, "s"));
        expect(error?.message).toMatch(problem);
      }
    } finally {
      await loader.close();
    }
  });
});
