// Section 9 of http-api.md, items 28-30, plus the Python-only artifact routes (save, metadata).
import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { ScriptedModel } from "@agentkit/core/testing";
import { json, post, send, startTestServer, userMessage, type Json, type TestServer } from "./support/test-server.js";

let t: TestServer;
let sid: string;
const U = "art_user";
const base = () => `${t.url}/apps/A/users/${U}/sessions/${sid}/artifacts`;

beforeAll(async () => {
  t = await startTestServer();
  sid = (await json(await post(`${t.url}/apps/A/users/${U}/sessions`))).id as string;
});
afterAll(async () => {
  await t.close();
});

async function saveNote(text: string, callId: string): Promise<Json[]> {
  t.model.push(ScriptedModel.functionCall("save_note", { text }, callId), ScriptedModel.text("saved"));
  const res = await post(`${t.url}/run`, {
    appName: "A",
    userId: U,
    sessionId: sid,
    newMessage: userMessage("save it"),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Json[];
}

describe("checklist 28-30: artifacts", () => {
  it("28. a tool saving note.txt yields artifactDelta 0; list and load return it", async () => {
    const events = await saveNote("first text", "sn-1");
    expect(events.some((e) => e.actions.artifactDelta["note.txt"] === 0)).toBe(true);
    expect(await (await fetch(base())).json()).toEqual(["note.txt"]);
    const res = await fetch(`${base()}/note.txt`);
    expect(res.status).toBe(200);
    const part = await json(res);
    expect(part.inlineData.mimeType).toBe("text/plain");
    expect(Buffer.from(part.inlineData.data, "base64").toString()).toBe("first text");
  });

  it("29. versions [0, 1]; version 0 by path; missing version or name is 404", async () => {
    const events = await saveNote("second text", "sn-2");
    expect(events.some((e) => e.actions.artifactDelta["note.txt"] === 1)).toBe(true);
    expect(await (await fetch(`${base()}/note.txt/versions`)).json()).toEqual([0, 1]);
    const v0 = await json(await fetch(`${base()}/note.txt/versions/0`));
    expect(Buffer.from(v0.inlineData.data, "base64").toString()).toBe("first text");
    const latest = await json(await fetch(`${base()}/note.txt/versions/latest`));
    expect(Buffer.from(latest.inlineData.data, "base64").toString()).toBe("second text");
    const byQuery = await json(await fetch(`${base()}/note.txt?version=0`));
    expect(Buffer.from(byQuery.inlineData.data, "base64").toString()).toBe("first text");
    expect((await fetch(`${base()}/note.txt/versions/9`)).status).toBe(404);
    expect((await fetch(`${base()}/nope.txt`)).status).toBe(404);
    expect((await fetch(`${base()}/note.txt?version=9`)).status).toBe(404);
    const bad = await fetch(`${base()}/note.txt/versions/abc`);
    expect(bad.status).toBe(400);
    expect(await (await fetch(`${base()}/nope.txt/versions`)).json()).toEqual([]);
  });

  it("29b. version metadata (Python routes)", async () => {
    const all = (await (await fetch(`${base()}/note.txt/versions/metadata`)).json()) as Json[];
    expect(all.map((v) => v.version)).toEqual([0, 1]);
    expect(typeof all[0]!.createTime).toBe("number");
    expect((await json(await fetch(`${base()}/note.txt/versions/1/metadata`))).version).toBe(1);
    expect((await fetch(`${base()}/note.txt/versions/5/metadata`)).status).toBe(404);
  });

  it("30. DELETE is 2xx and idempotent; the artifact is gone", async () => {
    const res = await send("DELETE", `${base()}/note.txt`);
    expect(res.status).toBe(204);
    expect((await send("DELETE", `${base()}/note.txt`)).status).toBe(204);
    expect(await (await fetch(base())).json()).toEqual([]);
    expect((await fetch(`${base()}/note.txt`)).status).toBe(404);
  });

  it("save by POST (Python), names with slashes, URL-safe base64 accepted and re-emitted standard", async () => {
    const data = Buffer.from([0xfb, 0xff, 0xfe]).toString("base64url"); // "-__-" style alphabet, unpadded
    const res = await post(base(), {
      filename: "docs/report.bin",
      artifact: { inline_data: { mime_type: "application/octet-stream", data } },
      custom_metadata: { by: "test" },
    });
    expect(res.status).toBe(200);
    const meta = await json(res);
    expect(meta.version).toBe(0);
    const part = await json(await fetch(`${base()}/docs/report.bin`));
    expect(part.inlineData.data).toBe(Buffer.from([0xfb, 0xff, 0xfe]).toString("base64"));
    expect(await (await fetch(`${base()}/docs/report.bin/versions`)).json()).toEqual([0]);
    const missing = await post(base(), { artifact: { text: "x" } });
    expect(missing.status).toBe(400);
    expect((await json(missing)).error).toContain("filename");
  });

  it("an unknown session lists no artifacts (never 404)", async () => {
    const res = await fetch(`${t.url}/apps/A/users/${U}/sessions/unknown/artifacts`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual([]);
    expect(t.logger.errors).toEqual([]);
  });
});
