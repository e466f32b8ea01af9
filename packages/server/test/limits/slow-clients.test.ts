// Slow and idle clients are cut off at the configured timeouts (raw sockets, small test values),
// and one address cannot hold more than its share of connections.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { startTestServer, type TestServer } from "../support/test-server.js";
import { rawClient, until, untilReceived } from "../support/raw-socket.js";

const HEADERS_MS = 300;
const BODY_MS = 400;
const REQUEST_MS = 1500;
const KEEP_ALIVE_MS = 250;
/** Generous bound on how late a close may come (a loaded CI machine), never a wait by itself. */
const BOUND_MS = 8000;

let t: TestServer;
let noBodyDeadline: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    limits: {
      headersTimeoutMs: HEADERS_MS,
      bodyTimeoutMs: BODY_MS,
      requestTimeoutMs: REQUEST_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_MS,
      maxConnectionsPerClient: 3,
    },
  });
  // Only Node's requestTimeout bounds the body here.
  noBodyDeadline = await startTestServer({
    limits: { headersTimeoutMs: HEADERS_MS, bodyTimeoutMs: 0, requestTimeoutMs: 700 },
  });
});
afterAll(async () => {
  await Promise.all([t.close(), noBodyDeadline.close()]);
});

const head = (length: number) =>
  `POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

/** Writes one byte of `{}`-ish body every `everyMs` until the socket closes. */
function trickle(socket: import("node:net").Socket, everyMs: number): () => void {
  const timer = setInterval(() => {
    if (!socket.destroyed && socket.writable) socket.write(" ");
  }, everyMs);
  socket.once("close", () => clearInterval(timer));
  return () => clearInterval(timer);
}

describe("slow clients", () => {
  it("a client that never finishes its headers is answered 408 and closed at headersTimeoutMs", async () => {
    const client = await rawClient(t.port);
    client.socket.write("POST /run HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1");
    const elapsed = await client.closed(BOUND_MS);
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_MS - 50);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("a connection that sends nothing is closed at headersTimeoutMs", async () => {
    const client = await rawClient(t.port);
    const elapsed = await client.closed(BOUND_MS);
    expect(elapsed).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  });

  it("a trickled body is answered 408 REQUEST_TIMEOUT (JSON) and closed at bodyTimeoutMs", async () => {
    const client = await rawClient(t.port);
    client.socket.write(head(10_000));
    trickle(client.socket, 30);
    const elapsed = await client.closed(BOUND_MS);
    expect(elapsed).toBeGreaterThanOrEqual(BODY_MS - 50);
    expect(elapsed).toBeLessThan(REQUEST_MS); // the body deadline, not Node's request timeout
    const answer = client.received();
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    expect(answer).toContain('"code":"REQUEST_TIMEOUT"');
  });

  it("without a body deadline, Node's requestTimeout still ends a trickled body", async () => {
    const client = await rawClient(noBodyDeadline.port);
    client.socket.write(head(10_000));
    trickle(client.socket, 30);
    const elapsed = await client.closed(BOUND_MS);
    expect(elapsed).toBeGreaterThanOrEqual(700 - 50);
    expect(client.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it("an idle keep-alive connection is closed at keepAliveTimeoutMs after its response", async () => {
    const client = await rawClient(t.port);
    client.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    await untilReceived(client, '{"status":"ok"}', BOUND_MS);
    const answered = performance.now();
    await client.closed(BOUND_MS);
    expect(performance.now() - answered).toBeGreaterThanOrEqual(KEEP_ALIVE_MS - 50);
    expect(client.received().match(/HTTP\/1\.1 /g)).toHaveLength(1);
  });

  it("a whole request that arrives in time is served", async () => {
    const client = await rawClient(t.port);
    const body = JSON.stringify({ appName: "A", userId: "u", sessionId: "nope" });
    client.socket.write(head(Buffer.byteLength(body)));
    client.socket.write(body);
    await untilReceived(client, "SESSION_NOT_FOUND", BOUND_MS);
    expect(client.received()).toMatch(/^HTTP\/1\.1 404 /);
    client.socket.destroy();
  });
});

describe("connections per client address", () => {
  it("answers the connection past the cap 429 and closes it; a freed slot is usable again", async () => {
    const held = await Promise.all([rawClient(t.port), rawClient(t.port), rawClient(t.port)]);
    // Each one is served once, so the server has certainly counted it.
    for (const client of held) {
      client.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await untilReceived(client, '{"status":"ok"}', BOUND_MS);
    }
    const extra = await rawClient(t.port);
    extra.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await extra.closed(BOUND_MS);
    expect(extra.received()).toMatch(/^HTTP\/1\.1 429 Too Many Requests\r\n/);
    expect(extra.received()).toMatch(/Retry-After: 1\r\n/);
    expect(extra.received()).toContain('"code":"TOO_MANY_CONNECTIONS"');
    expect(extra.received()).not.toContain('"status":"ok"');

    held[0]!.socket.destroy();
    await until(() => t.server.stats().connectionsOpen === 2, BOUND_MS, "the server to count the closed connection");
    const again = await rawClient(t.port);
    again.socket.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await untilReceived(again, '{"status":"ok"}', BOUND_MS);
    for (const client of [again, ...held]) client.socket.destroy();
  });
});
