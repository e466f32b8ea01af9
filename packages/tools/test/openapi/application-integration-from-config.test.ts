import { generateKeyPairSync, verify } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { applicationIntegrationToolsetFromConfig, type RestApiTool } from "../../src/openapi/index.js";
import { json, startServer } from "./http-test-server.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SERVICE_ACCOUNT = {
  type: "service_account",
  private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  client_email: "robot@proj.iam.gserviceaccount.com",
};
const ENV = "AGENTKIT_TEST_INTEGRATION_TOKEN";

let tokens: Awaited<ReturnType<typeof startServer>>;
let api: Awaited<ReturnType<typeof startServer>>;
let dir: string;

beforeAll(async () => {
  // Issues a token only for an assertion signed with the service account's key.
  tokens = await startServer((req, res) => {
    const [h, c, s] = (new URLSearchParams(req.body).get("assertion") ?? "").split(".");
    const signed =
      h && c && s && verify("RSA-SHA256", Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, "base64url"));
    if (!signed) return json(res, 400, { error: "invalid_grant" });
    json(res, 200, { access_token: "sa-token", expires_in: 3600, token_type: "Bearer" });
  });
  api = await startServer((req, res) => {
    if (!/^Bearer (sa-token|env-token)$/.test(req.headers.authorization ?? ""))
      return json(res, 401, { error: "no token" });
    if (req.url === "/v1/projects/proj/locations/us-central1:generateOpenApiSpec") {
      return json(res, 200, {
        openApiSpec: JSON.stringify({
          openapi: "3.0.1",
          servers: [{ url: api.url }],
          paths: {
            "/v1/projects/proj/locations/us-central1/integrations/orders:execute": {
              post: { operationId: "execute_orders", summary: "Creates an order." },
            },
          },
        }),
      });
    }
    if (req.url === "/v1/projects/proj/locations/us-central1/connections/crm?view=BASIC") {
      return json(res, 200, {
        name: "projects/proj/locations/us-central1/connections/crm",
        serviceDirectory: "sd",
        host: "crm.internal",
      });
    }
    if (req.method === "POST" && req.url.includes(":execute"))
      return json(res, 200, { executed: req.url, input: JSON.parse(req.body || "{}") });
    json(res, 404, { error: "not found" });
  });
  dir = mkdtempSync(join(tmpdir(), "agentkit-integration-config-"));
  writeFileSync(join(dir, "sa.json"), JSON.stringify(SERVICE_ACCOUNT));
});
afterAll(async () => {
  delete process.env[ENV];
  rmSync(dir, { recursive: true, force: true });
  await tokens.close();
  await api.close();
});

const urls = () => ({ token_url: `${tokens.url}/token`, integrations_base_url: api.url, connectors_base_url: api.url });

describe("applicationIntegrationToolsetFromConfig (YAML agent configs, ADK's ApplicationIntegrationToolset args)", () => {
  it("builds an integration's tools with a key file (sa_key_file, relative to baseDir) and tool_instructions, and calls the integration", async () => {
    const toolset = applicationIntegrationToolsetFromConfig(
      {
        project: "proj",
        location: "us-central1",
        integration: "orders",
        triggers: ["api_trigger/new_order"],
        sa_key_file: "sa.json",
        tool_instructions: "Use for orders.",
        ...urls(),
      },
      { baseDir: dir },
    );
    const tools = (await toolset.getTools()) as RestApiTool[];
    expect(tools.map((t) => t.name)).toEqual(["execute_orders"]);
    expect(tools[0]!.description).toBe("Creates an order.\n\nUse for orders.");
    expect(await tools[0]!.call({})).toEqual({
      executed: "/v1/projects/proj/locations/us-central1/integrations/orders:execute",
      input: {},
    });
    expect(api.requests.at(-1)!.headers.authorization).toBe("Bearer sa-token");
  });

  it("builds a connection's tools from camelCase args (entity names kept as written), with an inline key mapping or a token from the environment", async () => {
    const connection = {
      project: "proj",
      location: "us-central1",
      connection: "crm",
      entityOperations: { SalesContacts: ["GET"] },
      actions: ["SendEmail"],
      toolNamePrefix: "crm",
    };
    const withKey = applicationIntegrationToolsetFromConfig({
      ...connection,
      serviceAccountJson: SERVICE_ACCOUNT,
      tokenUrl: `${tokens.url}/token`,
      integrationsBaseUrl: api.url,
      connectorsBaseUrl: api.url,
    });
    expect((await withKey.getTools()).map((t) => t.name)).toEqual(["crm_get_sales_contacts", "crm_send_email"]);

    process.env[ENV] = "env-token";
    const withEnv = applicationIntegrationToolsetFromConfig({
      ...connection,
      access_token_env: ENV,
      tool_filter: ["crm_get_sales_contacts"],
      ...urls(),
    });
    const tools = (await withEnv.getTools()) as RestApiTool[];
    expect(tools.map((t) => t.name)).toEqual(["crm_get_sales_contacts"]);
    const answer = (await tools[0]!.call({ entityId: "c-1" })) as { input: Record<string, unknown> };
    expect(answer.input).toMatchObject({
      entity: "SalesContacts",
      operation: "GET_ENTITY",
      entityId: "c-1",
      connectionName: "projects/proj/locations/us-central1/connections/crm",
    });
    expect(api.requests.at(-1)!.headers.authorization).toBe("Bearer env-token");
  });

  it("refuses unsupported ADK fields, missing or double credentials and bad args with a ConfigurationError naming the field", () => {
    const base = { project: "proj", location: "us-central1", integration: "orders" };
    const fails = (args: Record<string, unknown>, pattern: RegExp) => {
      let error: unknown;
      try {
        applicationIntegrationToolsetFromConfig(args, { baseDir: dir });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toMatch(pattern);
    };
    fails(base, /exactly one of service_account_json, sa_key_file, access_token or access_token_env .*got none/);
    fails({ ...base, access_token: "t", max_response_bytes: 0 }, /max_response_bytes:/);
    fails({ ...base, access_token: "t", sa_key_file: "sa.json" }, /got sa_key_file, access_token/);
    fails({ ...base, access_token: "t", auth_scheme: { type: "oauth2" } }, /auth_scheme: not supported by agentkit/);
    fails({ ...base, access_token: "t", auth_credential: {} }, /auth_credential: not supported by agentkit/);
    fails({ location: "l", integration: "i", access_token: "t" }, /project:/);
    fails({ ...base, access_token: "t", colour: "red" }, /Unrecognized key: "colour"/);
    fails({ ...base, access_token: "t", actions: ["X"] }, /entity_operations and actions apply to a connection/);
    fails(
      { ...base, integration: undefined, connection: "crm", access_token: "t", entity_operations: { A: ["PATCH"] } },
      /entity_operations\.A\.0:/,
    );
    fails(
      { ...base, integration: undefined, connection: "crm", access_token: "t" },
      /A `connection` toolset needs `entity_operations`/,
    );
    fails({ ...base, connection: "crm", access_token: "t" }, /exactly one of `integration` or `connection`/);
    fails({ ...base, service_account_json: "{nope" }, /service_account_json is not valid JSON/);
    fails(
      { ...base, service_account_json: { type: "authorized_user" } },
      /service_account_json is not a service-account key/,
    );
    fails({ ...base, sa_key_file: "missing.json" }, /sa_key_file: cannot read .*missing\.json/);
    fails(
      { ...base, access_token_env: "AGENTKIT_TEST_UNSET_VARIABLE" },
      /access_token_env: environment variable AGENTKIT_TEST_UNSET_VARIABLE is not set/,
    );
    fails({ ...base, access_token: "t", tool_name_prefix: "bad prefix" }, /tool_name_prefix/);
  });
});
