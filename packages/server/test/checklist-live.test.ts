// Section 9 of http-api.md, items 33-34: the /run_live WebSocket with a scripted live model.
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import WebSocket from "ws";
import { closeReason } from "../src/live/live-socket-server.js";
import { json, post, startTestServer, type Json, type TestServer } from "./support/test-server.js";

let t: TestServer;
const U = "live_user";

beforeAll(async () => {
  t = await startTestServer();
  await post(`${t.url}/apps/live_app/users/${U}/sessions`, { sessionId: "s1" });
});
afterAll(async () => {
  await t.close();
});

interface Socket {
  ws: WebSocket;
  frames: Json[];
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `n` frames arrived. */
  frameCount(n: number): Promise<void>;
}

function connect(query: string, headers: Record<string, string> = {}): Promise<Socket> {
  const ws = new WebSocket(`${t.url.replace("http", "ws")}/run_live?${query}`, { headers });
  const frames: Json[] = [];
  const waiters: (() => void)[] = [];
  ws.on("message", (data, isBinary) => {
    expect(isBinary).toBe(false);
    frames.push(JSON.parse(data.toString()) as Json);
    for (const w of waiters.splice(0)) w();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  return new Promise((resolve, reject) => {
    ws.once("open", () =>
      resolve({
        ws,
        frames,
        closed,
        frameCount: async (n) => {
          while (frames.length < n) await new Promise<void>((r) => waiters.push(r));
        },
      }),
    );
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    ws.once("error", reject);
  });
}

const text = (t: string, extra: Json = {}) => ({ content: { role: "model", parts: [{ text: t }] }, ...extra });

describe("checklist 33-34: /run_live", () => {
  it("33. upgrading with an existing session stays open until the client closes", async () => {
    const s = await connect(`app_name=live_app&user_id=${U}&session_id=s1`);
    // The server still serves the socket: a bad frame gets its error frame, and nothing closes.
    s.ws.send("{not json");
    await s.frameCount(1);
    expect(s.frames[0]!.error).toBe("Invalid JSON format for LiveRequest");
    expect(s.ws.readyState).toBe(WebSocket.OPEN);
    s.ws.close(1000);
    expect((await s.closed).code).toBe(1000);
  });

  it("33. a missing session is closed with 1002", async () => {
    const s = await connect(`app_name=live_app&user_id=${U}&session_id=does-not-exist`);
    const { code, reason } = await s.closed;
    expect(code).toBe(1002);
    expect(reason).toBe("Session not found");
  });

  it("missing parameters and unknown apps are closed with 1008; other paths are refused", async () => {
    expect((await (await connect(`app_name=live_app&user_id=${U}`)).closed).code).toBe(1008);
    const unknown = await (await connect(`app_name=nope&user_id=${U}&session_id=s1`)).closed;
    expect(unknown.code).toBe(1008);
    expect(unknown.reason).toContain("nope");
    await expect(connect("x=1".replace("x", "y")).then((s) => s.closed)).resolves.toMatchObject({ code: 1008 });
    const other = new WebSocket(`${t.url.replace("http", "ws")}/not_live`);
    other.on("error", () => {});
    const status = await new Promise<number>((resolve) =>
      other.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)),
    );
    expect(status).toBe(404);
  });

  it("34. blob and content frames are accepted, every server frame is an Event, a failing run closes 1011", async () => {
    t.liveModel.push([text("Hel", { partial: true }), text("Hello"), { turnComplete: true }]);
    const s = await connect(`app_name=live_app&user_id=${U}&session_id=s1&modalities=TEXT`);
    s.ws.send(JSON.stringify({ blob: { mime_type: "audio/pcm", data: Buffer.from([1, 2, 3, 4]).toString("base64") } }));
    s.ws.send(JSON.stringify({ content: { role: "user", parts: [{ text: "hi" }] } }));
    await s.frameCount(3);
    for (const f of s.frames) {
      expect(typeof f.id).toBe("string");
      expect(typeof f.invocationId).toBe("string");
      expect(typeof f.actions).toBe("object");
    }
    expect(
      s.frames.map((f) => [f.content?.parts?.[0]?.text ?? "", f.partial ?? false, f.turnComplete ?? false]),
    ).toEqual([
      ["Hel", true, false],
      ["Hello", false, false],
      ["", false, true],
    ]);
    const connection = t.liveModel.lastConnection!;
    expect(connection.inputs[0]).toEqual({ kind: "realtime", blob: { mimeType: "audio/pcm", data: "AQIDBA==" } });
    expect(connection.request.liveConnectConfig?.responseModalities).toEqual(["TEXT"]);
    expect(s.ws.readyState).toBe(WebSocket.OPEN);

    // Bad frames get an error frame and the socket stays open.
    s.ws.send("{not json");
    s.ws.send(JSON.stringify({ blob: { data: "AAAA" } }));
    await s.frameCount(5);
    expect(s.frames[3]!.error).toBe("Invalid JSON format for LiveRequest");
    expect(s.frames[4]!.details).toContain("mime_type");
    expect(s.ws.readyState).toBe(WebSocket.OPEN);

    // No reply left: the scripted model fails and the run ends with 1011.
    s.ws.send(JSON.stringify({ content: { role: "user", parts: [{ text: "again" }] } }));
    const { code, reason } = await s.closed;
    expect(code).toBe(1011);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(reason.length).toBeGreaterThan(0);
    t.logger.errors.length = 0;

    const session = await json(await fetch(`${t.url}/apps/live_app/users/${U}/sessions/s1`));
    expect(session.events.map((e: Json) => [e.author, e.content?.parts?.[0]?.text ?? ""])).toEqual([
      ["user", "hi"],
      ["voice", "Hello"],
      ["voice", ""],
      ["user", "again"],
    ]);
  });

  it("a close message ends the run and the server closes 1000", async () => {
    t.liveModel.push([text("Bye"), { turnComplete: true }]);
    const s = await connect(`app_name=live_app&user_id=${U}&session_id=s1`);
    s.ws.send(JSON.stringify({ content: { role: "user", parts: [{ text: "bye" }] } }));
    await s.frameCount(2);
    s.ws.send(JSON.stringify({ close: true }));
    expect((await s.closed).code).toBe(1000);
  });

  it("a foreign Origin is refused at the handshake", async () => {
    await expect(
      connect(`app_name=live_app&user_id=${U}&session_id=s1`, { Origin: "http://evil.test" }),
    ).rejects.toThrow("HTTP 403");
  });

  it("close reasons are cut to 123 bytes without splitting characters", () => {
    expect(closeReason("short")).toBe("short");
    const long = "é".repeat(100); // 200 bytes
    const cut = closeReason(long);
    expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(123);
    expect(cut).toBe("é".repeat(61));
  });
});
