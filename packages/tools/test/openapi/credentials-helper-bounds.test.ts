import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "@jest/globals";
import { ConfigurationError } from "@agentkit/core";
import { startLargeBodyServer, startSilentServer } from "@agentkit/test-support/http-body-servers";
import { CredentialsError, CredentialsHelper } from "../../src/openapi/index.js";
import { startServer } from "./http-test-server.js";

const SERVICE_ACCOUNT = JSON.stringify({
  type: "service_account",
  private_key: generateKeyPairSync("rsa", { modulusLength: 2048 })
    .privateKey.export({ type: "pkcs8", format: "pem" })
    .toString(),
  client_email: "robot@proj.iam.gserviceaccount.com",
});

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

async function failure(tokenUrl: string): Promise<CredentialsError> {
  const helper = CredentialsHelper.fromServiceAccountJson(SERVICE_ACCOUNT, { tokenUrl, timeoutMs: 1000 });
  const error = await helper.getAccessToken().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CredentialsError);
  return error as CredentialsError;
}

describe("CredentialsHelper token request bounds", () => {
  it("fails with CredentialsError when the token endpoint never answers", async () => {
    const server = await startSilentServer();
    running.push(server);
    const error = await failure(`${server.url}/token`);
    expect(error.message).toMatch(/timed out after 1000 ms/);
    expect(error.cause).toBeDefined();
  });

  it("does not retry a timed-out token request", async () => {
    const server = await startServer(() => {}); // records the request, never answers
    running.push(server);
    await failure(`${server.url}/token`);
    expect(server.requests.length).toBe(1);
  });

  it("fails with CredentialsError naming the limit when the answer is over 1 MiB", async () => {
    const server = await startLargeBodyServer({
      prefix: '{"access_token":"',
      fillBytes: 2 * 1024 * 1024,
      suffix: '","expires_in":3600}',
    });
    running.push(server);
    const error = await failure(`${server.url}/token`);
    expect(error.message).toMatch(/more than 1048576 bytes/);
  });

  it("refuses a timeoutMs that is not a positive number of milliseconds", () => {
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31])
      expect(() => CredentialsHelper.fromServiceAccountJson(SERVICE_ACCOUNT, { timeoutMs })).toThrow(
        ConfigurationError,
      );
  });
});
