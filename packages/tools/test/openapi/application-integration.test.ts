import { generateKeyPairSync, verify } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import {
  ApplicationIntegrationToolset,
  CredentialsError,
  CredentialsHelper,
  IntegrationError,
  type RestApiTool,
} from "../../src/openapi/index.js";
import { json, startServer, type RecordedRequest } from "./http-test-server.js";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const SERVICE_ACCOUNT = {
  type: "service_account",
  project_id: "proj",
  private_key_id: "key-1",
  private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  client_email: "robot@proj.iam.gserviceaccount.com",
};

interface Assertion {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
}
const assertions: Assertion[] = [];

/** Checks the RS256 signature of a JWT assertion with the service account's public key. */
function verifyAssertion(jwt: string): Assertion | undefined {
  const [h, c, s] = jwt.split(".");
  if (!h || !c || !s) return undefined;
  const ok = verify("RSA-SHA256", Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, "base64url"));
  if (!ok) return undefined;
  return {
    header: JSON.parse(Buffer.from(h, "base64url").toString()),
    claims: JSON.parse(Buffer.from(c, "base64url").toString()),
  };
}

let tokens: Awaited<ReturnType<typeof startServer>>;
let api: Awaited<ReturnType<typeof startServer>>;
let issued = 0;

const INTEGRATION_SPEC = (serverUrl: string) =>
  JSON.stringify({
    openapi: "3.0.1",
    info: { title: "orders", version: "1" },
    servers: [{ url: serverUrl }],
    paths: {
      "/v1/projects/proj/locations/us-central1/integrations/orders:execute": {
        post: {
          operationId: "execute_api_trigger/new_order",
          summary: "Creates an order.",
          requestBody: {
            content: { "application/json": { schema: { type: "object", properties: { item: { type: "string" } } } } },
          },
        },
      },
    },
  });

beforeAll(async () => {
  tokens = await startServer((req, res) => {
    const form = new URLSearchParams(req.body);
    const assertion = verifyAssertion(form.get("assertion") ?? "");
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer" || !assertion)
      return json(res, 400, { error: "invalid_grant" });
    assertions.push(assertion);
    json(res, 200, { access_token: `access-${++issued}`, expires_in: 3600, token_type: "Bearer" });
  });
  api = await startServer((req: RecordedRequest, res) => {
    if (!/^Bearer access-\d+$/.test(req.headers.authorization ?? "")) return json(res, 401, { error: "no token" });
    const path = req.url;
    if (req.method === "POST" && path === "/v1/projects/proj/locations/us-central1:generateOpenApiSpec") {
      return json(res, 200, { openApiSpec: INTEGRATION_SPEC(api.url) });
    }
    if (req.method === "GET" && path === "/v1/projects/proj/locations/us-central1/connections/crm?view=BASIC") {
      return json(res, 200, {
        name: "projects/proj/locations/us-central1/connections/crm",
        serviceDirectory: "sd-crm",
        host: "crm.internal",
      });
    }
    if (req.method === "GET" && path.includes("/connections/")) return json(res, 404, { error: "no such connection" });
    if (req.method === "POST" && path.includes(":execute"))
      return json(res, 200, { executed: path, input: JSON.parse(req.body || "{}") });
    json(res, 404, { error: "not found" });
  });
});
afterAll(async () => {
  await tokens.close();
  await api.close();
});

describe("CredentialsHelper", () => {
  it("exchanges a signed JWT assertion for an access token and caches it", async () => {
    const helper = CredentialsHelper.fromServiceAccountJson(JSON.stringify(SERVICE_ACCOUNT), {
      tokenUrl: `${tokens.url}/token`,
    });
    const before = assertions.length;
    const first = await helper.getAccessToken();
    expect(first).toMatch(/^access-\d+$/);
    expect(await helper.getAccessToken()).toBe(first); // cached, no second exchange
    expect(assertions.length).toBe(before + 1);
    const { header, claims } = assertions.at(-1)!;
    expect(header.alg).toBe("RS256");
    expect(claims).toMatchObject({
      iss: SERVICE_ACCOUNT.client_email,
      scope: "https://www.googleapis.com/auth/cloud-platform",
      aud: "https://oauth2.googleapis.com/token",
    });
    expect((claims.exp as number) - (claims.iat as number)).toBe(3600);
  });

  it("rejects what is not a service-account key, and reports a refused assertion", async () => {
    expect(() => CredentialsHelper.fromServiceAccountJson("{nope")).toThrow(ConfigurationError);
    expect(() => CredentialsHelper.fromServiceAccountJson(JSON.stringify({ type: "authorized_user" }))).toThrow(
      /not a service-account key/,
    );
    const other = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs8", format: "pem" })
      .toString();
    const forged = CredentialsHelper.fromServiceAccountJson(
      JSON.stringify({ ...SERVICE_ACCOUNT, private_key: other }),
      { tokenUrl: `${tokens.url}/token` },
    );
    await expect(forged.getAccessToken()).rejects.toBeInstanceOf(CredentialsError);
  });
});

describe("ApplicationIntegrationToolset", () => {
  const base = () => ({
    project: "proj",
    location: "us-central1",
    serviceAccountJson: JSON.stringify(SERVICE_ACCOUNT),
    tokenUrl: `${tokens.url}/token`,
    integrationsBaseUrl: api.url,
    connectorsBaseUrl: api.url,
  });

  it("builds an integration's tools from the generated OpenAPI spec and calls its execute endpoint", async () => {
    const toolset = new ApplicationIntegrationToolset({
      ...base(),
      integration: "orders",
      triggers: ["api_trigger/new_order"],
      toolInstructions: "Use for orders.",
    });
    const tools = await toolset.getTools();
    expect(tools.map((t) => t.name)).toEqual(["execute_api_trigger_new_order"]);
    expect(tools[0]!.description).toBe("Creates an order.\n\nUse for orders.");
    const specRequest = api.requests.find((r) => r.url.endsWith(":generateOpenApiSpec"))!;
    expect(JSON.parse(specRequest.body)).toEqual({
      apiTriggerResources: [{ integrationResource: "orders", triggerId: ["api_trigger/new_order"] }],
      fileFormat: "JSON",
    });
    const answer = await (tools[0] as RestApiTool).call({ item: "book" });
    expect(answer).toEqual({
      executed: "/v1/projects/proj/locations/us-central1/integrations/orders:execute",
      input: { item: "book" },
    });
    expect(api.requests.at(-1)!.headers.authorization).toMatch(/^Bearer access-\d+$/);
    await toolset.close();
  });

  it("turns a connection's entity operations and actions into tools that post to ExecuteConnection", async () => {
    const toolset = new ApplicationIntegrationToolset({
      ...base(),
      connection: "crm",
      entityOperations: { Contacts: ["LIST", "GET"], Issues: [] },
      actions: ["SendEmail"],
      toolNamePrefix: "crm",
    });
    const tools = (await toolset.getTools()) as RestApiTool[];
    expect(tools.map((t) => t.name)).toEqual([
      "crm_list_contacts",
      "crm_get_contacts",
      "crm_list_issues",
      "crm_get_issues",
      "crm_create_issues",
      "crm_update_issues",
      "crm_delete_issues",
      "crm_send_email",
    ]);
    const get = tools[1]!;
    expect(get.getDeclaration().parametersJsonSchema).toEqual({
      type: "object",
      properties: { entityId: { type: "string", description: "Id of the entity." } },
      required: ["entityId"],
    });
    const answer = (await get.call({ entityId: "c-7" })) as { executed: string; input: unknown };
    expect(answer.executed).toBe(
      "/v1/projects/proj/locations/us-central1/integrations/ExecuteConnection:execute?triggerId=api_trigger/ExecuteConnection",
    );
    expect(answer.input).toEqual({
      connectionName: "projects/proj/locations/us-central1/connections/crm",
      serviceName: "sd-crm",
      host: "crm.internal",
      entity: "Contacts",
      operation: "GET_ENTITY",
      entityId: "c-7",
    });
    const action = (await tools[7]!.call({ connectorInputPayload: { to: "a@b.c" } })) as {
      input: Record<string, unknown>;
    };
    expect(action.input).toMatchObject({
      action: "SendEmail",
      operation: "EXECUTE_ACTION",
      connectorInputPayload: { to: "a@b.c" },
    });
    expect(await toolset.getTools({} as never).then((t) => t.length)).toBe(8); // cached
  });

  it("validates its options and surfaces setup failures as IntegrationError", async () => {
    expect(() => new ApplicationIntegrationToolset({ ...base() })).toThrow(
      /exactly one of `integration` or `connection`/,
    );
    expect(() => new ApplicationIntegrationToolset({ ...base(), connection: "crm" })).toThrow(/entityOperations/);
    expect(() => new ApplicationIntegrationToolset({ project: "p", location: "l", integration: "i" })).toThrow(
      /serviceAccountJson/,
    );
    expect(
      () =>
        new ApplicationIntegrationToolset({ ...base(), integration: "i", entityOperations: { A: ["PATCH" as never] } }),
    ).toThrow(ConfigurationError);
    const missing = new ApplicationIntegrationToolset({ ...base(), connection: "nope", actions: ["X"] });
    await expect(missing.getTools()).rejects.toBeInstanceOf(IntegrationError);
    const noAuth = new ApplicationIntegrationToolset({
      ...base(),
      serviceAccountJson: undefined,
      accessToken: "wrong",
      integration: "orders",
    });
    await expect(noAuth.getTools()).rejects.toThrow(/HTTP 401/);
  });
});
