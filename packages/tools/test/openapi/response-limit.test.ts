import { afterEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { startLargeBodyServer, type LargeBodyServerOptions } from "@agentkit/test-support/http-body-servers";
import {
  ApplicationIntegrationToolset,
  IntegrationError,
  OpenApiToolset,
  type RestApiTool,
} from "../../src/openapi/index.js";
import { json, startServer } from "./http-test-server.js";

const MiB = 1024 * 1024;
const LIMIT = 64 * 1024;

const SPEC = {
  openapi: "3.0.1",
  info: { title: "big", version: "1" },
  paths: { "/big": { get: { operationId: "getBig", summary: "A large answer." } } },
};

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

/** A server whose every answer is a JSON object with 32 MiB of padding: read whole, it would parse. */
async function large(contentLength: boolean, options: Partial<LargeBodyServerOptions> = {}) {
  const server = await startLargeBodyServer({
    prefix: '{"pad":"',
    fillBytes: 32 * MiB,
    suffix: '"}',
    contentLength,
    ...options,
  });
  running.push(server);
  return server;
}

const restTool = async (baseUrl: string, extra: { maxResponseBytes?: number } = {}) =>
  (await new OpenApiToolset({ spec: SPEC, baseUrl, ...extra }).getTools())[0] as RestApiTool;

describe.each([
  ["chunked", false],
  ["with Content-Length", true],
])("An answer over maxResponseBytes (%s)", (_, contentLength) => {
  it("is returned by a RestApiTool as { error } and cancelled, not read to the end", async () => {
    const server = await large(contentLength);
    const tool = await restTool(server.url, { maxResponseBytes: LIMIT });
    expect(await tool.call({})).toEqual({ error: `GET /big: the response exceeded ${LIMIT} bytes.` });
    expect(await server.lastAnswer()).toBe("closed early");
  });

  it("fails an ApplicationIntegrationToolset setup call with IntegrationError", async () => {
    const server = await large(contentLength);
    const toolset = new ApplicationIntegrationToolset({
      project: "proj",
      location: "us-central1",
      connection: "crm",
      actions: ["SendEmail"],
      accessToken: "token",
      connectorsBaseUrl: server.url,
      maxResponseBytes: LIMIT,
    });
    const error = await toolset.getTools().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IntegrationError);
    expect((error as Error).message).toBe(
      `GET ${server.url}/v1/projects/proj/locations/us-central1/connections/crm?view=BASIC: the response exceeded ` +
        `${LIMIT} bytes.`,
    );
    expect(await server.lastAnswer()).toBe("closed early");
  });

  it("is returned by an ApplicationIntegrationToolset tool as { error }", async () => {
    const connectors = await startServer((_req, res) =>
      json(res, 200, { name: "projects/proj/locations/us-central1/connections/crm", host: "crm.internal" }),
    );
    running.push(connectors);
    const integrations = await large(contentLength);
    const toolset = new ApplicationIntegrationToolset({
      project: "proj",
      location: "us-central1",
      connection: "crm",
      actions: ["SendEmail"],
      accessToken: "token",
      connectorsBaseUrl: connectors.url,
      integrationsBaseUrl: integrations.url,
      maxResponseBytes: LIMIT,
    });
    const [tool] = (await toolset.getTools()) as RestApiTool[];
    expect(await tool!.call({ connectorInputPayload: {} })).toEqual({
      error:
        "POST /v1/projects/proj/locations/us-central1/integrations/ExecuteConnection:execute: the response exceeded " +
        `${LIMIT} bytes.`,
    });
    expect(await integrations.lastAnswer()).toBe("closed early");
  });
});

describe("maxResponseBytes", () => {
  it("defaults to 10 MiB for REST tools", async () => {
    const server = await large(false);
    const tool = await restTool(server.url);
    expect(await tool.call({})).toEqual({ error: `GET /big: the response exceeded ${10 * MiB} bytes.` });
    expect(await server.lastAnswer()).toBe("closed early");
  });

  it("is validated like the other options", () => {
    expect(() => new OpenApiToolset({ spec: SPEC, baseUrl: "http://127.0.0.1", maxResponseBytes: 0 })).toThrow(
      /maxResponseBytes: Too small/,
    );
    expect(
      () =>
        new ApplicationIntegrationToolset({
          project: "p",
          location: "l",
          integration: "i",
          accessToken: "t",
          maxResponseBytes: 1.5,
        }),
    ).toThrow(ConfigurationError);
  });
});
