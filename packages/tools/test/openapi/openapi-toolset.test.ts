import { once, EventEmitter } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { AgentKitError, ConfigurationError, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { OpenApiSpecError, OpenApiToolset, type RestApiTool } from "../../src/openapi/index.js";
import { startRunner } from "../helpers.js";
import { json, startServer } from "./http-test-server.js";

const SPEC = readFileSync(fileURLToPath(new URL("./petstore.yaml", import.meta.url)), "utf8");

let server: Awaited<ReturnType<typeof startServer>>;
/** Emits "request" when /api/slow receives one. */
const slowCalls = new EventEmitter();
beforeAll(async () => {
  server = await startServer(async (req, res) => {
    const url = new URL(req.url, "http://x");
    if (url.pathname === "/api/slow") {
      // Never answers: only the client's timeout or abort ends the call.
      slowCalls.emit("request");
      await new Promise<void>((r) => res.on("close", () => r()));
      return;
    }
    if (url.pathname === "/api/pets/missing") return json(res, 404, { message: "no such pet" });
    if (url.pathname === "/api/pets/boom")
      return void res.writeHead(500, { "content-type": "text/plain" }).end("kaput");
    if (url.pathname === "/api/pets" && req.method === "GET")
      return void res.writeHead(200, { "content-type": "text/plain" }).end(`list:${url.searchParams.get("q")}`);
    json(res, 200, { method: req.method, path: url.pathname });
  });
});
afterAll(() => server.close());

// A generous timeout for calls the server answers (a loaded CI machine must not fail them); the
// never-answering /api/slow call gets its own short one.
const toolset = (extra: Partial<ConstructorParameters<typeof OpenApiToolset>[0]> = {}) =>
  new OpenApiToolset({ spec: SPEC, baseUrl: `${server.url}/api`, timeoutMs: 30_000, ...extra });
const tool = async (ts: OpenApiToolset, name: string) =>
  (await ts.getTools()).find((t) => t.name === name) as RestApiTool;

describe("OpenApiToolset", () => {
  it("names tools from operationIds (snake_case) or method+path and resolves $refs in the schemas", async () => {
    const ts = toolset();
    expect((await ts.getTools()).map((t) => t.name)).toEqual(["get_pet_by_id", "get_pets", "create_pet", "slow"]);
    const get = (await tool(ts, "get_pet_by_id")).getDeclaration();
    expect(get.description).toBe("Get one pet.");
    expect(get.parametersJsonSchema).toEqual({
      type: "object",
      properties: {
        petId: { type: "string", description: "The pet id." },
        include: { type: "array", items: { type: "string" } },
        "X-Trace": { type: "string" },
      },
      required: ["petId"],
    });
    type Schema = { type?: string; properties?: Record<string, Schema>; items?: Schema };
    const create = (await tool(ts, "create_pet")).getDeclaration().parametersJsonSchema as {
      properties: Record<string, Schema>;
      required: string[];
    };
    expect(create.required).toEqual(["name"]);
    expect(create.properties.name).toEqual({ type: "string" }); // `example` dropped
    // NewPet → owner → pets → NewPet is a cycle: cut as a plain object.
    expect(create.properties.owner?.properties?.pets?.items).toEqual({ type: "object" });
  });

  it("encodes path and query values, sends header params and the JSON body, with API-key auth", async () => {
    const ts = toolset({
      auth: { type: "apiKey", name: "X-Api-Key", value: "k-123" },
      headers: { "x-client": "agentkit" },
    });
    const before = server.requests.length;
    const answer = await (await tool(ts, "get_pet_by_id")).call({
      petId: "a b/c?",
      include: ["x&y", "z"],
      "X-Trace": "t1",
    });
    expect(answer).toEqual({ method: "GET", path: "/api/pets/a%20b%2Fc%3F" });
    const req = server.requests[before]!;
    expect(req.url).toBe("/api/pets/a%20b%2Fc%3F?include=x%26y&include=z");
    expect(req.headers["x-api-key"]).toBe("k-123");
    expect(req.headers["x-trace"]).toBe("t1");
    expect(req.headers["x-client"]).toBe("agentkit");

    await (await tool(ts, "create_pet")).call({ name: "Rex", tags: ["good"] });
    const post = server.requests.at(-1)!;
    expect(post.method).toBe("POST");
    expect(post.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(post.body)).toEqual({ name: "Rex", tags: ["good"] });
  });

  it("supports bearer (static or provider), basic and query API-key auth", async () => {
    const cases: [Parameters<typeof toolset>[0], (r: (typeof server.requests)[number]) => void][] = [
      [
        { auth: { type: "bearer", token: async () => "dyn" } },
        (r) => expect(r.headers.authorization).toBe("Bearer dyn"),
      ],
      [
        { auth: { type: "basic", username: "u", password: "p:w" } },
        (r) => expect(r.headers.authorization).toBe(`Basic ${Buffer.from("u:p:w").toString("base64")}`),
      ],
      [
        { auth: { type: "apiKey", name: "key", value: "v 1", in: "query" } },
        (r) => expect(r.url).toBe("/api/pets/1?key=v+1"),
      ],
    ];
    for (const [options, check] of cases) {
      await (await tool(toolset(options), "get_pet_by_id")).call({ petId: "1" });
      check(server.requests.at(-1)!);
    }
  });

  it("returns text responses, and 404/500 answers, timeouts and missing arguments as errors the model sees", async () => {
    const ts = toolset();
    expect(await (await tool(ts, "get_pets")).call({ q: "cat" })).toEqual({ result: "list:cat" });
    expect(await (await tool(ts, "get_pet_by_id")).call({ petId: "missing" })).toEqual({
      error: "HTTP 404 Not Found from GET /api/pets/missing",
      status: 404,
      body: { message: "no such pet" },
    });
    expect(await (await tool(ts, "get_pet_by_id")).call({ petId: "boom" })).toMatchObject({
      status: 500,
      body: "kaput",
    });
    expect(await (await tool(toolset({ timeoutMs: 500 }), "slow")).call({})).toEqual({
      error: "GET /api/slow timed out after 500 ms.",
    });
    expect(await (await tool(ts, "get_pets")).call({})).toEqual({
      error: "Missing required argument(s) for get_pets: q.",
    });
  });

  it("throws when the caller's signal aborts", async () => {
    const controller = new AbortController();
    const arrived = once(slowCalls, "request");
    const pending = (await tool(toolset({ timeoutMs: 60_000 }), "slow")).call({}, controller.signal);
    await arrived; // abort while the server holds the request
    controller.abort(new Error("stop"));
    await expect(pending).rejects.toThrow("stop");
  });

  it("applies the tool filter and the name prefix", async () => {
    const ts = toolset({ toolFilter: ["pets_slow"], toolNamePrefix: "pets" });
    expect((await ts.getTools()).map((t) => t.name)).toEqual(["pets_slow"]);
  });

  it("rejects bad documents and options with typed errors", () => {
    const bad = (spec: unknown, code: string) => {
      try {
        new OpenApiToolset({ spec: spec as string, baseUrl: "http://127.0.0.1:1" });
      } catch (error) {
        expect(error).toBeInstanceOf(AgentKitError);
        expect((error as AgentKitError).code).toBe(code);
        return;
      }
      throw new Error("expected an error");
    };
    bad("openapi: [unclosed", "OPENAPI_SPEC_ERROR");
    bad({ swagger: "2.0", paths: {} }, "OPENAPI_SPEC_ERROR");
    bad(
      { openapi: "3.1.0", paths: { "/a": { get: { parameters: [{ $ref: "#/components/parameters/Nope" }] } } } },
      "OPENAPI_SPEC_ERROR",
    );
    bad(42, "CONFIGURATION_ERROR");
    expect(
      () => new OpenApiToolset({ spec: { openapi: "3.0.0", paths: {}, servers: [{ url: "/relative" }] } }),
    ).toThrow(OpenApiSpecError);
    expect(() => new OpenApiToolset({ spec: SPEC, baseUrl: "http://x", auth: { type: "digest" } as never })).toThrow(
      ConfigurationError,
    );
  });

  it("is called by an LlmAgent through a runner, and an HTTP error reaches the model", async () => {
    const model = new ScriptedModel({
      steps: [
        ScriptedModel.functionCall("create_pet", { name: "Tom" }),
        ScriptedModel.functionCall("get_pet_by_id", { petId: "missing" }),
        ScriptedModel.text("Created Tom; the other pet does not exist."),
      ],
    });
    const agent = new LlmAgent({
      name: "pets",
      model,
      tools: [toolset({ auth: { type: "bearer", token: "run-token" } })],
    });
    const { runner, send } = await startRunner(agent);
    try {
      const events = await send("make a pet");
      const responses = events
        .flatMap((e) => e.content?.parts ?? [])
        .flatMap((p) => (p.functionResponse ? [p.functionResponse] : []));
      expect(responses[0]!.response).toEqual({ method: "POST", path: "/api/pets" });
      expect(responses[1]!.response).toMatchObject({ status: 404, body: { message: "no such pet" } });
      // The model's third request carries the error result.
      const last = model.requests[2]!.contents.flatMap((c) => c.parts ?? []).flatMap((p) =>
        p.functionResponse ? [p.functionResponse] : [],
      );
      expect(last.at(-1)!.response?.error).toBe("HTTP 404 Not Found from GET /api/pets/missing");
      expect(model.requests[0]!.toolNames).toEqual(expect.arrayContaining(["create_pet", "get_pet_by_id"]));
      expect(server.requests.at(-1)!.headers.authorization).toBe("Bearer run-token");
      model.assertConsumed();
    } finally {
      await runner.close();
    }
  });
});
