// Run rate limits per user and per app: 429 RATE_LIMITED with Retry-After on /run, /run_sse and
// /run_live, nothing stored for a refused run, and the buckets' refill (with a clock the test moves).
import { describe, expect, it } from "@jest/globals";
import { WebSocket } from "ws";
import { ScriptedModel } from "@agentkit/core/testing";
import { RateLimitedError, RunRateLimiter } from "../../src/http/run-rate-limiter.js";
import { json, post, startTestServer, userMessage } from "../support/test-server.js";

const run = (url: string, userId: string, path = "/run") =>
  post(`${url}${path}`, { appName: "A", userId, sessionId: "s", newMessage: userMessage("hi") });

/** The upgrade's status and Retry-After when refused, or "open". */
function liveUpgrade(url: string, user: string): Promise<{ status: number; retryAfter?: string } | "open"> {
  const ws = new WebSocket(`${url.replace("http", "ws")}/run_live?app_name=live_app&user_id=${user}&session_id=s`);
  return new Promise((resolve, reject) => {
    ws.once("open", () => {
      ws.close();
      resolve("open");
    });
    ws.once("unexpected-response", (_req, res) => {
      resolve({ status: res.statusCode!, retryAfter: res.headers["retry-after"] as string });
      res.resume();
    });
    ws.once("error", reject);
  });
}

describe("run rate limits on the server", () => {
  it("refuses a user's third run in a minute with 429 and Retry-After, on /run and /run_sse, storing nothing", async () => {
    const t = await startTestServer({ limits: { runsPerUserPerMinute: 2 } });
    try {
      for (const text of ["one", "two", "three"]) t.model.push(ScriptedModel.text(text));
      await post(`${t.url}/apps/A/users/u1/sessions`, { sessionId: "s" });
      expect((await run(t.url, "u1")).status).toBe(200);
      expect((await run(t.url, "u1", "/run_sse")).status).toBe(200);

      for (const path of ["/run", "/run_sse"]) {
        const refused = await run(t.url, "u1", path);
        expect(refused.status).toBe(429);
        expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
        // A minute's allowance of 2 refills one run every 30 s.
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(29);
        expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(30);
        expect(await json(refused)).toMatchObject({ code: "RATE_LIMITED", error: expect.any(String) });
      }
      const session = await t.sessionService.getSession({ appName: "A", userId: "u1", sessionId: "s" });
      expect(session!.events.map((e) => e.content?.parts?.[0]?.text)).toEqual(["hi", "one", "hi", "two"]);

      // Another user has an allowance of their own.
      await post(`${t.url}/apps/A/users/u2/sessions`, { sessionId: "s" });
      expect((await run(t.url, "u2")).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("limits all users of an app together, and refuses a /run_live upgrade past the limit", async () => {
    const t = await startTestServer({ limits: { runsPerAppPerMinute: 1 } });
    try {
      t.model.push(ScriptedModel.text("one"));
      for (const user of ["u1", "u2"]) await post(`${t.url}/apps/A/users/${user}/sessions`, { sessionId: "s" });
      expect((await run(t.url, "u1")).status).toBe(200);
      const refused = await run(t.url, "u2");
      expect(refused.status).toBe(429);
      expect(await json(refused)).toMatchObject({ code: "RATE_LIMITED", error: expect.stringContaining("app") });

      await post(`${t.url}/apps/live_app/users/u1/sessions`, { sessionId: "s" });
      expect(await liveUpgrade(t.url, "u1")).toBe("open");
      expect(await liveUpgrade(t.url, "u2")).toEqual({ status: 429, retryAfter: "60" });
    } finally {
      await t.close();
    }
  });
});

describe("RunRateLimiter", () => {
  it("lets a burst of a minute's allowance through, then one run per refill interval", () => {
    let now = 0;
    const limiter = new RunRateLimiter({ runsPerUserPerMinute: 3, runsPerAppPerMinute: 0 }, () => now);
    for (let i = 0; i < 3; i++) limiter.take("app", "u");
    expect(() => limiter.take("app", "u")).toThrow(RateLimitedError);
    now = 19_999;
    const refused = (() => {
      try {
        limiter.take("app", "u");
      } catch (error) {
        return error as RateLimitedError;
      }
    })();
    expect(refused?.retryAfterSeconds).toBeCloseTo(0.001, 6);
    now = 20_000;
    limiter.take("app", "u");
    expect(() => limiter.take("app", "u")).toThrow(RateLimitedError);
    // Idle for long, the bucket is full again but never holds more than a minute's allowance.
    now = 10 * 60_000;
    for (let i = 0; i < 3; i++) limiter.take("app", "u");
    expect(() => limiter.take("app", "u")).toThrow(RateLimitedError);
  });

  it("takes from neither bucket when one refuses", () => {
    const limiter = new RunRateLimiter({ runsPerUserPerMinute: 1, runsPerAppPerMinute: 2 }, () => 0);
    limiter.take("app", "a");
    expect(() => limiter.take("app", "a")).toThrow(
      expect.objectContaining({ message: expect.stringContaining("user") }),
    );
    // a's refusal did not spend the app's second run.
    limiter.take("app", "b");
    expect(() => limiter.take("app", "c")).toThrow(
      expect.objectContaining({ message: expect.stringContaining("app") }),
    );
  });
});
