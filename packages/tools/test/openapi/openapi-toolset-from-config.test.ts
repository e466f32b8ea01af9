import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import {
  OpenApiSpecError,
  openApiToolsetFromConfig,
  type OpenApiToolset,
  type RestApiTool,
} from "../../src/openapi/index.js";
import { json, startServer } from "./http-test-server.js";

const SPEC_YAML = readFileSync(fileURLToPath(new URL("./petstore.yaml", import.meta.url)), "utf8");
const ENV = "AGENTKIT_TEST_OPENAPI_TOKEN";

let server: Awaited<ReturnType<typeof startServer>>;
let dir: string;
beforeAll(async () => {
  server = await startServer((req, res) => json(res, 200, { method: req.method, url: req.url }));
  dir = mkdtempSync(join(tmpdir(), "agentkit-openapi-config-"));
});
afterAll(async () => {
  delete process.env[ENV];
  rmSync(dir, { recursive: true, force: true });
  await server.close();
});

/** A one-operation JSON document whose server is the local test server. */
const jsonSpec = () =>
  JSON.stringify({
    openapi: "3.0.0",
    info: { title: "t", version: "1" },
    servers: [{ url: `${server.url}/v2` }],
    paths: {
      "/items/{id}": {
        get: {
          operationId: "getItem",
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
        },
      },
    },
  });
const tool = async (ts: OpenApiToolset, name: string) =>
  (await ts.getTools()).find((t) => t.name === name) as RestApiTool | undefined;

describe("openApiToolsetFromConfig (YAML agent configs, ADK's OpenAPIToolset args)", () => {
  it("builds tools from an inline YAML spec_str that call the server with base_url, headers, filter, prefix and bearer auth from the environment", async () => {
    process.env[ENV] = "env-token";
    const ts = openApiToolsetFromConfig({
      spec_str: SPEC_YAML,
      spec_str_type: "yaml",
      base_url: `${server.url}/api`,
      headers: { "X-Client-Id": "agentkit" },
      auth: { type: "bearer", token_env: ENV },
      tool_filter: ["pets_get_pet_by_id"],
      tool_name_prefix: "pets",
      timeout: 5,
    });
    expect((await ts.getTools()).map((t) => t.name)).toEqual(["pets_get_pet_by_id"]);
    const before = server.requests.length;
    expect(await (await tool(ts, "pets_get_pet_by_id"))!.call({ petId: "7" })).toEqual({
      method: "GET",
      url: "/api/pets/7",
    });
    const req = server.requests[before]!;
    expect(req.headers.authorization).toBe("Bearer env-token");
    expect(req.headers["x-client-id"]).toBe("agentkit");
  });

  it("accepts a JSON spec_str using the document's server, camelCase keys, and api-key auth", async () => {
    const ts = openApiToolsetFromConfig({
      specStr: jsonSpec(),
      specStrType: "json",
      auth: { type: "api_key", name: "key", value: "k1", in: "query" },
    });
    expect(await (await tool(ts, "get_item"))!.call({ id: "a" })).toEqual({ method: "GET", url: "/v2/items/a?key=k1" });
  });

  it("reads spec_path relative to baseDir (and to the working directory without it), and takes spec_dict", async () => {
    writeFileSync(join(dir, "api.json"), jsonSpec());
    const fromBase = openApiToolsetFromConfig(
      { spec_path: "api.json", auth: { type: "basic", username: "u", password: "p" } },
      { baseDir: dir },
    );
    await (await tool(fromBase, "get_item"))!.call({ id: "b" });
    expect(server.requests.at(-1)!.headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    const fromCwd = openApiToolsetFromConfig({ spec_path: relative(process.cwd(), join(dir, "api.json")) });
    expect((await fromCwd.getTools()).map((t) => t.name)).toEqual(["get_item"]);
    const fromDict = openApiToolsetFromConfig({ spec_dict: JSON.parse(jsonSpec()) as Record<string, unknown> });
    expect(await (await tool(fromDict, "get_item"))!.call({ id: "c" })).toEqual({ method: "GET", url: "/v2/items/c" });
  });

  it("passes max_response_bytes to its tools: a larger answer comes back as an error, not read on", async () => {
    const small = openApiToolsetFromConfig({ spec_str: jsonSpec(), max_response_bytes: 10 });
    // The test server answers {"method":"GET","url":"/v2/items/d"}: over 10 bytes.
    expect(await (await tool(small, "get_item"))!.call({ id: "d" })).toEqual({
      error: "GET /v2/items/d: the response exceeded 10 bytes.",
    });
    const roomy = openApiToolsetFromConfig({ spec_str: jsonSpec(), maxResponseBytes: 1000 });
    expect(await (await tool(roomy, "get_item"))!.call({ id: "d" })).toEqual({ method: "GET", url: "/v2/items/d" });
  });

  it("rejects missing, ambiguous, unknown or malformed args with a ConfigurationError naming the field", () => {
    const fails = (args: Record<string, unknown>, pattern: RegExp, options?: { baseDir?: string }) => {
      let error: unknown;
      try {
        openApiToolsetFromConfig(args, options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(pattern);
    };
    fails({}, /exactly one of spec_str, spec_dict or spec_path; got none/);
    fails({ spec_str: jsonSpec(), spec_path: "x.yaml" }, /exactly one .*got spec_str, spec_path/);
    fails({ spec_str: jsonSpec(), tools: ["x"] }, /OpenAPIToolset args: .*"tools"/);
    fails({ spec_str: jsonSpec(), spec_str_type: "xml" }, /spec_str_type:/);
    fails({ spec_str: jsonSpec(), max_response_bytes: 0 }, /max_response_bytes:/);
    fails({ spec_str: jsonSpec(), max_response_bytes: 1.5 }, /max_response_bytes:/);
    fails(
      { spec_str: "openapi: 3.0.0\npaths: {}", spec_str_type: "json" },
      /spec_str: spec_str_type is json but the text is not valid JSON/,
    );
    fails({ spec_path: "missing.yaml" }, /spec_path: cannot read .*missing\.yaml/, { baseDir: dir });
    fails({ spec_str: jsonSpec(), base_url: "ftp://x" }, /base_url:/);
    fails({ spec_str: jsonSpec(), auth: { type: "bearer" } }, /auth: needs exactly one of token or token_env/);
    fails(
      { spec_str: jsonSpec(), auth: { type: "bearer", token_env: "AGENTKIT_TEST_UNSET_VARIABLE" } },
      /auth\.token_env: environment variable AGENTKIT_TEST_UNSET_VARIABLE is not set/,
    );
    fails({ spec_str: jsonSpec(), auth: { type: "digest" } }, /auth\.type:/);
    fails(
      { spec_str: jsonSpec(), auth_credential: { auth_type: "oauth2" } },
      /auth_credential: not supported by agentkit; use `auth`/,
    );
    fails({ spec_str: jsonSpec(), tool_name_prefix: "bad prefix" }, /tool_name_prefix:/);
  });

  it("reports a document that is not OpenAPI 3 as an OpenApiSpecError", () => {
    expect(() => openApiToolsetFromConfig({ spec_str: "swagger: '2.0'\npaths: {}", spec_str_type: "yaml" })).toThrow(
      OpenApiSpecError,
    );
  });
});
