// The Host check holds on every bind: bound to 0.0.0.0 the server accepts loopback names, the
// machine's own addresses and the configured allowedHosts, never an arbitrary (rebound) name.
import { networkInterfaces } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { isAcceptedHost } from "../../src/http/host-guard.js";
import { bearer, KEYS, rawRequest, startAuthServer, type AuthTestServer } from "./auth-server.js";

let t: AuthTestServer;
let open: AuthTestServer;

beforeAll(async () => {
  t = await startAuthServer({ listenHost: "0.0.0.0", allowedHosts: ["agents.example.com"] });
  // No auth and no allowedHosts: the Host check still holds.
  open = await startAuthServer({ listenHost: "0.0.0.0", auth: undefined });
});
afterAll(async () => {
  await Promise.all([t?.close(), open?.close()]);
});

const get = (server: AuthTestServer, host: string, path = "/list-apps", headers: Record<string, string> = {}) =>
  rawRequest(server.port, { path, headers: { Host: host, ...bearer(KEYS.alice), ...headers } });

describe("bound to 0.0.0.0", () => {
  it("refuses a foreign Host name even with a valid key", async () => {
    for (const host of ["attacker.example", `attacker.example:${t.port}`, "agents.example.com.attacker.example"]) {
      const res = await get(t, host);
      expect([host, res.status]).toEqual([host, 403]);
      expect(JSON.parse(res.body)).toMatchObject({ code: "FORBIDDEN", error: expect.stringMatching(/DNS-rebinding/) });
    }
  });

  it("accepts the allowed host, loopback names and the machine's own addresses", async () => {
    const own = Object.values(networkInterfaces())
      .flatMap((list) => list ?? [])
      .map((i) => (i.family === "IPv6" ? `[${i.address}]` : i.address));
    for (const host of [
      `agents.example.com:${t.port}`,
      "AGENTS.example.com",
      `127.0.0.1:${t.port}`,
      "localhost",
      ...own,
    ]) {
      expect([host, (await get(t, host)).status]).toEqual([host, 200]);
    }
  });

  it("without allowedHosts a DNS name is refused, with or without auth", async () => {
    expect((await get(open, `agents.example.com:${open.port}`)).status).toBe(403);
    expect((await get(open, `127.0.0.1:${open.port}`)).status).toBe(200);
    expect(open.logger.lines.join("\n")).toContain("warn Listening on 0.0.0.0 without authentication");
  });

  it("refuses a cross-origin state change, accepts a same-origin one", async () => {
    const host = `agents.example.com:${t.port}`;
    const post = (origin: string) =>
      rawRequest(t.port, {
        method: "POST",
        path: "/apps/A/users/alice/sessions",
        headers: { Host: host, Origin: origin, ...bearer(KEYS.alice) },
      });
    expect((await post("http://evil.test")).status).toBe(403);
    expect((await post(`http://${host}`)).status).toBe(200);
  });
});

describe("isAcceptedHost", () => {
  it("on a specific address accepts that address and allowedHosts only", () => {
    expect(isAcceptedHost("10.1.2.3", "10.1.2.3", [])).toBe(true);
    expect(isAcceptedHost("localhost", "10.1.2.3", [])).toBe(false);
    expect(isAcceptedHost("evil.test", "10.1.2.3", [])).toBe(false);
    expect(isAcceptedHost("api.example.com", "10.1.2.3", ["api.example.com"])).toBe(true);
    expect(isAcceptedHost("[fe80::1]", "fe80::1", [])).toBe(true);
    expect(isAcceptedHost("[fe80::1]", "10.1.2.3", ["fe80::1"])).toBe(true);
  });

  it("on a wildcard bind never accepts an address of another machine", () => {
    expect(isAcceptedHost("203.0.113.7", "0.0.0.0", [])).toBe(false);
    expect(isAcceptedHost("127.0.0.1", "::", [])).toBe(true);
  });
});
