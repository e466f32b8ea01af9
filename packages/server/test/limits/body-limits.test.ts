// Request bodies: the size limit, the shared budget of large bodies in flight, the JSON depth limit.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { DEFAULT_BODY_LIMIT, DEFAULT_SERVER_LIMITS } from "../../src/index.js";
import { jsonDepthExceeds } from "../../src/http/body-guard.js";
import { json, post, startTestServer, type TestServer } from "../support/test-server.js";
import { rawClient, until, untilReceived } from "../support/raw-socket.js";

const MIB = 1024 * 1024;
const BOUND_MS = 8000;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ bodyLimit: "2mb", limits: { maxBodyBytesInFlight: 3 * MIB, maxJsonDepth: 32 } });
});
afterAll(async () => {
  await t.close();
});

/** An artifact save of about `bytes` bytes of JSON. */
const artifactBody = (bytes: number) =>
  JSON.stringify({ filename: "big.txt", artifact: { text: "x".repeat(Math.max(0, bytes - 60)) } });

describe("body limits", () => {
  it("defaults: 20mb bodies, 64 MiB of large bodies in flight, depth 64", () => {
    expect(DEFAULT_BODY_LIMIT).toBe("20mb");
    expect(DEFAULT_SERVER_LIMITS.maxBodyBytesInFlight).toBe(64 * MIB);
    expect(DEFAULT_SERVER_LIMITS.maxJsonDepth).toBe(64);
  });

  it("a large body that does not fit the budget now is 413 with Retry-After, before it is read; it fits once the other ends", async () => {
    await post(`${t.url}/apps/A/users/u/sessions`, { sessionId: "s" });
    // A 2 MiB body that is being received (never finished) holds 2 of the 3 MiB.
    const slow = await rawClient(t.port);
    slow.socket.write(
      `POST /apps/A/users/u/sessions/s/artifacts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${2 * MIB}\r\n\r\n{"filename":`,
    );
    await until(() => t.server.stats().bodyBytesInFlight === 2 * MIB, BOUND_MS, "the first body's reservation");

    const refused = await fetch(`${t.url}/apps/A/users/u/sessions/s/artifacts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: artifactBody(1.5 * MIB),
    });
    expect(refused.status).toBe(413);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(await json(refused)).toMatchObject({ code: "TOO_MANY_LARGE_BODIES" });
    // Small bodies never wait for the budget.
    const small = await post(`${t.url}/apps/A/users/u/sessions/s/artifacts`, {
      filename: "s.txt",
      artifact: { text: "hi" },
    });
    expect(small.status).toBe(200);

    slow.socket.destroy();
    await until(() => t.server.stats().bodyBytesInFlight === 0, BOUND_MS, "the reservation to be released");
    const fits = await fetch(`${t.url}/apps/A/users/u/sessions/s/artifacts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: artifactBody(1.5 * MIB),
    });
    expect(fits.status).toBe(200);
    expect(t.server.stats().bodyBytesInFlight).toBe(0);
  });

  it("a chunked body reserves the whole body limit", async () => {
    const client = await rawClient(t.port);
    client.socket.write(
      "POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: " +
        "chunked\r\n\r\n1\r\n{\r\n",
    );
    await until(() => t.server.stats().bodyBytesInFlight === 2 * MIB, BOUND_MS, "the chunked body's reservation");
    client.socket.write("0\r\n\r\n");
    await untilReceived(client, "INVALID_JSON", BOUND_MS);
    client.socket.destroy();
    await until(() => t.server.stats().bodyBytesInFlight === 0, BOUND_MS, "the reservation to be released");
  });

  it("a body over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
    const r = await fetch(`${t.url}/apps/A/users/u/sessions/s/artifacts`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: artifactBody(2 * MIB + 100),
    });
    expect(r.status).toBe(413);
    expect(await json(r)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    // Refused before a byte of it is read, and the connection is not kept to drain it.
    const client = await rawClient(t.port);
    client.socket.write(
      `POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ` +
        `application/json\r\nContent-Length: ${100 * MIB}\r\n\r\n{`,
    );
    await client.closed(BOUND_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 413 /);
    expect(client.received()).toMatch(/connection: close/i);
    expect(client.received()).toContain('"code":"PAYLOAD_TOO_LARGE"');
  });

  it("JSON nested deeper than maxJsonDepth is 400 JSON_TOO_DEEP; brackets inside strings do not count", async () => {
    for (const body of ["[".repeat(100_000), `{"state":${"[".repeat(33)}${"]".repeat(33)}}`]) {
      const r = await fetch(`${t.url}/apps/A/users/u/sessions`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
      });
      expect(r.status).toBe(400);
      expect(await json(r)).toMatchObject({ code: "JSON_TOO_DEEP" });
    }
    const nested = { a: JSON.parse(`${"[".repeat(20)}1${"]".repeat(20)}`) as unknown, s: "[[[[[[[[[[".repeat(10) };
    const ok = await post(`${t.url}/apps/A/users/u/sessions`, { state: nested });
    expect(ok.status).toBe(200);
    expect((await json(ok)).state).toEqual(nested);
  });

  it("jsonDepthExceeds follows strings and escapes", () => {
    const bytes = (text: string) => Buffer.from(text);
    expect(jsonDepthExceeds(bytes('[["\\"[[[["]]'), 2)).toBe(false);
    expect(jsonDepthExceeds(bytes("[[[1]]]"), 2)).toBe(true);
    expect(jsonDepthExceeds(bytes('{"a":{"b":{}}}'), 3)).toBe(false);
    expect(jsonDepthExceeds(bytes('{"a":{"b":{"c":[]}}}'), 3)).toBe(true);
  });
});
