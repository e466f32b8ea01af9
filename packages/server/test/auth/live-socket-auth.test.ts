// The /run_live WebSocket upgrade goes through the same authenticator and own-user rule as
// HTTP: the token comes in the Authorization header or, for browsers, as a sub-protocol.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import { WEBSOCKET_BEARER_PREFIX, WEBSOCKET_PROTOCOL } from "../../src/index.js";
import { bearer, KEYS, startAuthServer, type AuthTestServer } from "./auth-server.js";

let t: AuthTestServer;

beforeAll(async () => {
  t = await startAuthServer();
  for (const [user, key] of [
    ["alice", KEYS.alice],
    ["bob", KEYS.bob],
  ] as const) {
    const res = await fetch(`${t.url}/apps/live_app/users/${user}/sessions`, {
      method: "POST",
      headers: { ...bearer(key), "Content-Type": "application/json" },
      body: JSON.stringify({ sessionId: "live-1" }),
    });
    expect(res.status).toBe(200);
  }
});
afterAll(async () => {
  await t?.close();
});

type Outcome =
  | { open: true; protocol: string; ws: WebSocket }
  | { open: false; status: number; challenge?: string; body: { code?: string; error?: string } };

/** Opens a live socket; resolves with the open socket or the HTTP answer that refused the upgrade. */
function open(
  user: string,
  options: { headers?: Record<string, string>; protocols?: string[] } = {},
): Promise<Outcome> {
  const url = `${t.url.replace("http", "ws")}/run_live?app_name=live_app&user_id=${user}&session_id=live-1&modalities=TEXT`;
  const ws = new WebSocket(url, options.protocols ?? [], { headers: options.headers ?? {} });
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve({ open: true, protocol: ws.protocol, ws }));
    ws.once("unexpected-response", (_req, res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString()));
      res.on("end", () =>
        resolve({
          open: false,
          status: res.statusCode ?? 0,
          ...(res.headers["www-authenticate"] ? { challenge: String(res.headers["www-authenticate"]) } : {}),
          body: JSON.parse(text) as { code?: string },
        }),
      );
    });
    ws.once("error", reject);
  });
}

async function closeSocket(outcome: Outcome): Promise<void> {
  if (!outcome.open) return;
  const closed = new Promise((r) => outcome.ws.once("close", r));
  outcome.ws.close();
  await closed;
}

const protocolToken = (key: string) => `${WEBSOCKET_BEARER_PREFIX}${Buffer.from(key).toString("base64url")}`;

describe("/run_live with auth on", () => {
  it("refuses an upgrade without credentials with 401 and a Bearer challenge", async () => {
    const outcome = await open("alice");
    expect(outcome).toMatchObject({ open: false, status: 401, challenge: 'Bearer realm="agentkit"' });
    expect(outcome.open === false && outcome.body.code).toBe("UNAUTHENTICATED");
  });

  it("refuses a wrong key with error=invalid_token", async () => {
    const outcome = await open("alice", { headers: bearer("not-a-key-0123456789abcdef") });
    expect(outcome).toMatchObject({
      open: false,
      status: 401,
      challenge: 'Bearer realm="agentkit", error="invalid_token"',
    });
  });

  it("refuses alice's key on bob's session with 403, before the run starts", async () => {
    const outcome = await open("bob", { headers: bearer(KEYS.alice) });
    expect(outcome).toMatchObject({ open: false, status: 403, body: { code: "FORBIDDEN" } });
    const refused = await open("bob", { protocols: [WEBSOCKET_PROTOCOL, protocolToken(KEYS.alice)] });
    expect(refused).toMatchObject({ open: false, status: 403 });
  });

  it("opens alice's own live session with the header", async () => {
    const outcome = await open("alice", { headers: bearer(KEYS.alice) });
    expect(outcome.open).toBe(true);
    await closeSocket(outcome);
  });

  it("opens with the token as a sub-protocol and selects `agentkit`, never the token", async () => {
    const outcome = await open("alice", { protocols: [protocolToken(KEYS.alice), WEBSOCKET_PROTOCOL] });
    expect(outcome).toMatchObject({ open: true, protocol: WEBSOCKET_PROTOCOL });
    await closeSocket(outcome);
    const bad = await open("alice", { protocols: [`${WEBSOCKET_BEARER_PREFIX}***`, WEBSOCKET_PROTOCOL] });
    expect(bad).toMatchObject({
      open: false,
      status: 401,
      challenge: 'Bearer realm="agentkit", error="invalid_request"',
    });
  });

  it("lets the admin open bob's session", async () => {
    const outcome = await open("bob", { headers: bearer(KEYS.admin) });
    expect(outcome.open).toBe(true);
    await closeSocket(outcome);
  });

  it("logged why upgrades were refused, never a key", () => {
    const text = t.logger.lines.join("\n");
    expect(text).toMatch(/Unauthenticated: GET \/run_live: invalid/);
    for (const key of Object.values(KEYS)) expect(text).not.toContain(key);
    expect(text).not.toContain(Buffer.from(KEYS.alice).toString("base64url"));
  });
});
