// Section 9 item 36 (CORS) and the DNS-rebinding / Origin checks of http-api.md 4.13.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { post, startTestServer, type TestServer } from "./support/test-server.js";

const O = "http://localhost:4200";
let t: TestServer;
let plain: TestServer;

beforeAll(async () => {
  t = await startTestServer({ cors: { allowOrigins: [O, "regex:^https://.*\\.example\\.com$"], maxAge: 600 } });
  plain = await startTestServer({ allowedHosts: ["agents.internal"] });
});
afterAll(async () => {
  await Promise.all([t.close(), plain.close()]);
});

/** A raw request with any Host header (fetch will not let us forge one). */
function rawRequest(
  port: number,
  options: { method?: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path, headers: options.headers },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

describe("checklist 36: CORS", () => {
  it("a preflight from an allowed origin reflects it and allows POST and PATCH", async () => {
    const pre = await fetch(`${t.url}/run_sse`, {
      method: "OPTIONS",
      headers: { Origin: O, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" },
    });
    expect(pre.status).toBeGreaterThanOrEqual(200);
    expect(pre.status).toBeLessThan(300);
    expect(pre.headers.get("access-control-allow-origin")).toBe(O);
    expect(pre.headers.get("access-control-allow-methods")).toContain("POST");
    expect(pre.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(pre.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
    expect(pre.headers.get("access-control-max-age")).toBe("600");
  });

  it("regex entries match; other origins get no Access-Control-Allow-Origin for themselves", async () => {
    const ok = await fetch(`${t.url}/list-apps`, { headers: { Origin: "https://ui.example.com" } });
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://ui.example.com");
    const evil = "http://evil.test";
    const pre = await fetch(`${t.url}/run_sse`, {
      method: "OPTIONS",
      headers: { Origin: evil, "Access-Control-Request-Method": "POST" },
    });
    expect(pre.headers.get("access-control-allow-origin")).not.toBe(evil);
    const get = await fetch(`${t.url}/list-apps`, { headers: { Origin: evil } });
    expect(get.headers.get("access-control-allow-origin")).not.toBe(evil);
  });

  it("an allowed cross-origin POST passes the Origin check; a foreign one is 403", async () => {
    const ok = await post(`${t.url}/apps/A/users/u/sessions`, undefined, { Origin: O });
    expect(ok.status).toBe(200);
    const evil = await post(`${t.url}/apps/A/users/u/sessions`, undefined, { Origin: "http://evil.test" });
    expect(evil.status).toBe(403);
    expect(((await evil.json()) as { error: string }).error).toMatch(/origin not allowed/);
  });

  it("CORS is off by default", async () => {
    const res = await fetch(`${plain.url}/list-apps`, { headers: { Origin: O } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("DNS rebinding and Origin checks while bound to 127.0.0.1", () => {
  it("refuses a foreign Host header, accepts loopback names and allowedHosts", async () => {
    const rebound = await rawRequest(plain.port, { path: "/list-apps", headers: { Host: "attacker.example:8000" } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatch(/DNS-rebinding/);
    for (const host of [
      `localhost:${plain.port}`,
      `127.0.0.1:${plain.port}`,
      `[::1]:${plain.port}`,
      "agents.internal",
    ]) {
      expect((await rawRequest(plain.port, { path: "/list-apps", headers: { Host: host } })).status).toBe(200);
    }
  });

  it("same-origin state changes pass, foreign and non-loopback origins are 403, GETs pass", async () => {
    const same = await post(`${plain.url}/apps/A/users/u/sessions`, undefined, { Origin: plain.url });
    expect(same.status).toBe(200);
    const foreign = await post(`${plain.url}/apps/A/users/u/sessions`, undefined, { Origin: "http://evil.test" });
    expect(foreign.status).toBe(403);
    const nullOrigin = await post(`${plain.url}/apps/A/users/u/sessions`, undefined, { Origin: "null" });
    expect(nullOrigin.status).toBe(403);
    const read = await fetch(`${plain.url}/list-apps`, { headers: { Origin: "http://evil.test" } });
    expect(read.status).toBe(200);
  });
});
