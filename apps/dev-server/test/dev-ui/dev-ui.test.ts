import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Page } from "playwright-core";
import { query, seeCount, seeText, sendMessage, startHarness, until, type Harness } from "./harness.js";

const TIMEOUT = 90_000;
let h: Harness;
let page: Page;

beforeAll(async () => {
  h = await startHarness();
  page = h.page;
}, TIMEOUT);

afterAll(async () => {
  await h?.close();
}, TIMEOUT);

async function openApp(app: string): Promise<void> {
  await page.goto(`${h.server.url}/dev-ui/?app=${app}&userId=e2e`);
  await page.getByRole("heading", { name: "New chat" }).waitFor();
}

const agentMessage = (author: string) => page.locator(`article.message[data-author="${author}"]`);

describe("dev UI in Chromium against the dev server", () => {
  it("is served with <base href> and JavaScript types, and the root redirects to it", async () => {
    const root = await fetch(h.server.url, { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/dev-ui/");
    const html = await (await fetch(`${h.server.url}/dev-ui/`)).text();
    expect(html).toContain('<base href="./">');
    const script = /src="\.\/(assets\/index-[\w-]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const js = await fetch(`${h.server.url}/dev-ui/${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/^text\/javascript/);
  });

  it(
    "picks an app, streams a reply into one message, and puts app, user and session in the URL",
    async () => {
      await page.goto(`${h.server.url}/dev-ui/?userId=e2e`);
      await page.getByRole("combobox", { name: "App" }).selectOption("stream_agent");
      expect(query(page).get("app")).toBe("stream_agent");
      const { request, body } = await sendMessage(h, "hi there");
      expect(request).toMatchObject({
        appName: "stream_agent",
        streaming: true,
        newMessage: { role: "user", parts: [{ text: "hi there" }] },
      });
      expect(body).toContain('"partial":true');
      const reply = agentMessage("stream_agent");
      await seeText(reply.locator(".markdown strong"), "stream");
      await seeCount(reply, 1); // the partial chunks were replaced by the final event
      await seeText(reply, "Hello from the stream");
      await seeText(page.locator("article.message.from-user"), "hi there");
      const session = query(page).get("session");
      expect(session).toMatch(/^[\w-]{8,}$/);
      expect(query(page).get("userId")).toBe("e2e");
      // the new session is listed, named after the first message, with a time of today (seconds read right)
      const item = page.locator(`li[data-session-id="${session}"]`);
      await seeText(item.locator(".session-name"), "hi there");
      const iso = await item.locator("time").getAttribute("datetime");
      expect(Math.abs(Date.parse(iso!) - Date.now())).toBeLessThan(5 * 60_000);
      await seeText(page.getByTestId("session-tokens"), "17 tokens");
      await h.screenshot("01-streamed-reply");
    },
    TIMEOUT,
  );

  it(
    "turns streaming off, sends a file as inlineData, renames the session, and a reload reopens it",
    async () => {
      await page.getByRole("checkbox", { name: "Streaming" }).uncheck();
      await page.locator('input[type="file"]').setInputFiles({
        name: "dot.png",
        mimeType: "image/png",
        buffer: Buffer.from(
          "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
          "base64",
        ),
      });
      await seeText(page.locator(".chip"), "dot.png");
      const { request, body } = await sendMessage(h, "see attached");
      expect(request.streaming).toBe(false);
      expect(body).not.toContain('"partial":true');
      const parts = (
        request.newMessage as { parts: { inlineData?: { mimeType: string; data: string; displayName: string } }[] }
      ).parts;
      expect(parts[1]!.inlineData).toMatchObject({ mimeType: "image/png", displayName: "dot.png" });
      expect(parts[1]!.inlineData!.data).toMatch(/^iVBORw0KGgo/);
      await seeCount(page.locator("article.message.from-user img.inline-image"), 1);
      await seeCount(agentMessage("stream_agent"), 2);
      await seeText(page.getByTestId("session-tokens"), "34 tokens");

      const session = query(page).get("session")!;
      const item = page.locator(`li[data-session-id="${session}"]`);
      await item.getByRole("button", { name: /^Rename/ }).click();
      const name = item.getByRole("textbox", { name: "Session name" });
      await name.fill("Renamed chat");
      await name.press("Enter");
      await seeText(item.locator(".session-name"), "Renamed chat");

      await page.reload();
      expect(query(page).get("session")).toBe(session);
      await page.getByRole("heading", { name: "Renamed chat" }).first().waitFor();
      await seeCount(agentMessage("stream_agent"), 2);
      expect(await page.locator(`li[data-session-id="${session}"]`).getAttribute("class")).toMatch(/current/);
      await page.getByRole("checkbox", { name: "Streaming" }).check();
    },
    TIMEOUT,
  );

  it(
    "shows tool calls as expandable cards, the event JSON, its model request, the trace, state editing and the graph",
    async () => {
      await openApp("tool_agent");
      await sendMessage(h, "weather in Paris?");
      await seeText(agentMessage("tool_agent").last(), "It is sunny in Paris.");
      const call = page.locator('details.tool-card.call[data-tool="get_weather"]');
      const result = page.locator('details.tool-card.response[data-tool="get_weather"]');
      await call.locator("summary").click();
      await seeText(call.getByLabel("Arguments of get_weather"), '"city": "Paris"');
      await result.locator("summary").click();
      await seeText(result.getByLabel("Result of get_weather"), '"forecast": "sunny"');

      // the event behind the function call: JSON, usage and the model exchange from its trace span
      await call
        .locator("xpath=ancestor::article")
        .getByRole("button", { name: /^Inspect event/ })
        .click();
      await seeText(page.getByLabel("Event JSON"), '"functionCall"');
      await seeText(page.getByRole("table", { name: "Token usage" }), "totalTokenCount");
      await seeText(page.getByLabel("Model request"), "weather in Paris?");
      await seeText(page.getByLabel("Model response"), "get_weather");
      await h.screenshot("02-tool-event");

      await page.getByRole("tab", { name: "Trace" }).click();
      expect(query(page).get("tab")).toBe("trace");
      const spans = page.locator("li.span");
      await spans.first().first().waitFor();
      const names = await spans.locator(".span-name").allTextContents();
      expect(names[0]).toBe("invocation");
      expect(names).toEqual(expect.arrayContaining(["call_llm", "execute_tool get_weather"]));
      expect(await spans.locator(".span-duration").first().textContent()).toMatch(/\d+(\.\d+)? (µs|ms|s)$/);
      const toolRow = spans.filter({ has: page.locator(".span-name", { hasText: "execute_tool get_weather" }) });
      expect(await toolRow.locator(".span-name").getAttribute("style")).toMatch(/padding-left: 28px/); // nested two levels
      await h.screenshot("03-trace");

      await page.getByRole("tab", { name: "State" }).click();
      await page.getByRole("textbox", { name: "State key" }).fill("city");
      await page.getByRole("textbox", { name: "State value" }).fill('{"name": "Rome"}');
      await page.getByRole("button", { name: "Set" }).click();
      await seeText(page.getByLabel("Session state"), '"name": "Rome"');
      const stored = (await (
        await fetch(`${h.server.url}/apps/tool_agent/users/e2e/sessions/${query(page).get("session")}`)
      ).json()) as { state: Record<string, unknown> };
      expect(stored.state.city).toEqual({ name: "Rome" });

      await page.getByRole("tab", { name: "Graph" }).click();
      await page.locator('.graph svg[aria-label="Agent graph of tool_agent"]').first().waitFor();
      await seeText(page.locator(".graph svg"), "get_weather");
      await h.screenshot("04-graph");
    },
    TIMEOUT,
  );

  it(
    "creates an eval set, adds the session as a case, runs it and shows the metrics",
    async () => {
      await page.getByRole("tab", { name: "Evals" }).click();
      await page.getByRole("textbox", { name: "New eval set id" }).fill("smoke");
      await page.getByRole("button", { name: "Create" }).click();
      await seeText(page.locator('[data-eval-set="smoke"] h4'), "smoke");
      await page.getByRole("button", { name: "Add current session" }).click();
      await seeText(page.locator('[data-eval-set="smoke"]'), "Cases: case_");
      await page.getByRole("button", { name: "Run eval" }).click();
      const table = page.getByRole("table", { name: "Eval results" });
      await table.first().waitFor();
      const trajectory = table.locator('tr[data-metric="tool_trajectory_avg_score"]');
      await seeText(trajectory, "1.00");
      await seeText(trajectory, "passed");
      await seeText(table.locator('tr[data-metric="response_match_score"]'), "passed");
      await h.screenshot("05-evals");
    },
    TIMEOUT,
  );

  it(
    "edits a case's expected turns, runs with per-run thresholds through the progress stream, compares expected and actual, links to the run's session and trace, and lists past runs",
    async () => {
      const set = page.locator('[data-eval-set="smoke"]');
      const caseId = (await set.locator("button.chip").first().textContent())!;
      expect(caseId).toMatch(/^case_/);

      // View and edit the expected turn: the change is saved to the eval set.
      await set.getByRole("button", { name: caseId }).click();
      const editor = page.getByRole("region", { name: `Eval case ${caseId}` });
      await seeText(editor, "weather in Paris?");
      const expected = editor.getByRole("textbox", { name: "Expected response of turn 1" });
      expect(await expected.inputValue()).toBe("It is sunny in Paris.");
      expect(await editor.getByRole("textbox", { name: "Expected tool calls of turn 1" }).inputValue()).toContain(
        '"get_weather"',
      );
      await expected.fill("Paris is sunny today.");
      const [saved] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "PUT" && r.url().endsWith(`/evals/${caseId}`)),
        editor.getByRole("button", { name: "Save case" }).click(),
      ]);
      expect(saved.status()).toBe(200);
      const stored = (await (
        await fetch(`${h.server.url}/dev/apps/tool_agent/eval_sets/smoke/evals/${caseId}`)
      ).json()) as { conversation: { finalResponse: { parts: { text: string }[] } }[] };
      expect(stored.conversation[0]!.finalResponse.parts[0]!.text).toBe("Paris is sunny today.");
      await editor.getByRole("button", { name: "Close" }).click();

      // Thresholds per run, sent through the streaming run route.
      await page.getByRole("spinbutton", { name: "Threshold of response_match_score" }).fill("0.95");
      const [request] = await Promise.all([
        page.waitForRequest((r) => r.url().endsWith("/eval-sets/smoke/run-stream")),
        page.getByRole("button", { name: "Run eval" }).click(),
      ]);
      expect(request.postDataJSON()).toEqual({
        evalCaseIds: [caseId],
        evalMetrics: expect.arrayContaining([{ metricName: "response_match_score", threshold: 0.95 }]),
      });
      const response = page
        .getByRole("table", { name: "Eval results" })
        .locator('tr[data-metric="response_match_score"]');
      await seeText(response, "0.95");
      await seeText(response, "failed");

      // Expected and actual side by side, with links to the eval run's session and trace.
      const detail = page.locator(`details.eval-case-detail[data-eval-id="${caseId}"]`).first();
      await detail.locator("summary").click();
      const turn = detail.getByRole("table", { name: `Turn 1 of ${caseId}` });
      await seeText(turn.locator('tr[data-row="response"] td').nth(0), "Paris is sunny today.");
      await seeText(turn.locator('tr[data-row="response"] td').nth(1), "It is sunny in Paris.");
      await seeText(turn.locator('tr[data-row="tools"] td').nth(1), 'get_weather({"city":"Paris"})');
      await h.screenshot("05b-eval-compare");
      const sessionHref = await detail.getByRole("link", { name: "Open session" }).getAttribute("href");
      const link = new URLSearchParams(sessionHref!.slice(1));
      expect(link.get("app")).toBe("tool_agent");
      expect(link.get("session")).toMatch(/^___eval___session___/);
      const evalSession = (await (
        await fetch(`${h.server.url}/apps/tool_agent/users/${link.get("userId")}/sessions/${link.get("session")}`)
      ).json()) as { events: unknown[] };
      expect(evalSession.events.length).toBeGreaterThan(0);

      // Past runs: both runs of this test file are listed, and one opens to its results.
      await page.getByRole("button", { name: "Past runs" }).click();
      const past = page.getByRole("list", { name: "Past eval runs" }).getByRole("button");
      await until(
        () => past.count(),
        (n) => n >= 2,
        "two past runs listed",
      );
      await past.first().click();
      await seeText(page.locator(".eval-history-run"), `${caseId} failed`);

      await detail.getByRole("link", { name: "Trace" }).click();
      await until(
        async () => query(page).get("tab"),
        (tab) => tab === "trace",
        "the trace tab in the URL",
      );
      expect(query(page).get("session")).toBe(link.get("session"));
      await page.locator("li.span").first().waitFor();
    },
    TIMEOUT,
  );

  it(
    "asks for approval of a confirmation-gated tool and runs it once approved",
    async () => {
      await openApp("confirm_agent");
      await sendMessage(h, "send 10");
      const pending = page.getByRole("region", { name: "Confirmation requested" });
      await seeText(pending, "transfer_money");
      await seeText(pending, '"amount": 10');
      await h.screenshot("06-confirmation");
      const [answer] = await Promise.all([
        page.waitForRequest((r) => r.url().endsWith("/run_sse")),
        pending.getByRole("button", { name: "Approve" }).click(),
      ]);
      const body = JSON.parse(answer.postData() ?? "{}") as {
        functionCallEventId?: string;
        newMessage: { parts: { functionResponse?: { name: string; response: unknown } }[] };
      };
      expect(body.newMessage.parts[0]!.functionResponse).toMatchObject({
        name: "adk_request_confirmation",
        response: { confirmed: true },
      });
      expect(body.functionCallEventId).toBeTruthy();
      await seeText(agentMessage("confirm_agent").last(), 'Transfer result: {"done":true,"amount":10}');
      await seeCount(pending, 0);
    },
    TIMEOUT,
  );

  it(
    "answers a long-running tool with typed text",
    async () => {
      await openApp("long_agent");
      await sendMessage(h, "order laptops");
      const form = page.getByRole("form", { name: "Answer ask_manager" });
      await seeText(form, "May I order 3 laptops?");
      await form.getByRole("textbox", { name: "Response for ask_manager" }).fill("yes, approved");
      await form.getByRole("button", { name: "Send response" }).click();
      await seeText(agentMessage("long_agent").last(), 'The manager said: {"result":"yes, approved"}');
      await seeCount(form, 0);
    },
    TIMEOUT,
  );

  it(
    "lists a saved artifact with its versions, previews it and offers a download",
    async () => {
      await openApp("artifact_agent");
      await sendMessage(h, "save a note");
      await seeText(page.locator("article.message.from-user"), "save a note");
      await page.getByText("Saved artifact: note.txt (v0)").first().waitFor();
      await page.getByRole("tab", { name: "Artifacts" }).click();
      await page.getByRole("button", { name: "note.txt version 0" }).click();
      await seeText(page.getByLabel("Content of note.txt"), "hello artifact");
      const [download] = await Promise.all([
        page.waitForEvent("download"),
        page.getByRole("link", { name: "Download" }).click(),
      ]);
      expect(download.suggestedFilename()).toBe("note.txt");
      await h.screenshot("07-artifact");
    },
    TIMEOUT,
  );

  it(
    "shows a failing model's error instead of swallowing it",
    async () => {
      await openApp("error_agent");
      await sendMessage(h, "please fail");
      await page
        .getByText(/the model exploded/)
        .first()
        .first()
        .waitFor();
      await h.screenshot("08-error");
    },
    TIMEOUT,
  );

  it(
    "shows an error frame that ends the stream (a callback that throws)",
    async () => {
      await openApp("crash_agent");
      const { body } = await sendMessage(h, "crash please");
      const frame = /data: (\{"error":.*\})\n/.exec(body)?.[1];
      expect(frame).toBeDefined();
      const message = (JSON.parse(frame!) as { error: string }).error;
      await seeText(page.locator(".toast"), `Run failed: ${message}`);
      await page.getByRole("button", { name: "Dismiss" }).first().click();
      await seeCount(page.locator(".toast"), 0);
    },
    TIMEOUT,
  );

  it(
    "shows who answers after an agent transfer",
    async () => {
      await openApp("transfer_agent");
      await sendMessage(h, "question about my invoice");
      const helper = agentMessage("billing_helper");
      await seeText(helper, "Billing here: your invoice is paid.");
      await seeText(helper, "took over from transfer_agent");
      await seeText(page.locator(".note"), "transferred to billing_helper");
      // markdown is rendered, and sanitised: no script, no handlers; links open in a new tab
      const link = helper.locator('.markdown a[href="https://example.com/billing"]');
      expect(await link.getAttribute("target")).toBe("_blank");
      expect(await link.getAttribute("rel")).toContain("noopener");
      expect(await helper.locator(".markdown script").count()).toBe(0);
      expect(await helper.locator(".markdown b").getAttribute("onclick")).toBeNull();
      await helper.locator(".markdown b").click();
      expect(await page.evaluate("window.__xss")).toBeUndefined();
    },
    TIMEOUT,
  );

  it(
    "streams the microphone over /run_live as 16 kHz PCM blobs and shows the live answer",
    async () => {
      await openApp("live_agent");
      await page.getByRole("button", { name: "+ New" }).click();
      await until(
        async () => query(page).get("session"),
        (s) => !!s,
        "a new session in the URL",
      );
      const session = query(page).get("session")!;
      const [socket] = await Promise.all([
        page.waitForEvent("websocket"),
        page.getByRole("button", { name: "Talk (live audio)" }).click(),
      ]);
      const url = new URL(socket.url());
      expect(url.pathname).toBe("/run_live");
      expect(Object.fromEntries(url.searchParams)).toEqual({
        app_name: "live_agent",
        user_id: "e2e",
        session_id: session,
      });
      const frame = await socket.waitForEvent("framesent");
      const sent = JSON.parse(String(frame.payload)) as { blob: { mime_type: string; data: string } };
      expect(sent.blob.mime_type).toBe("audio/pcm");
      const bytes = Buffer.from(sent.blob.data, "base64");
      expect(bytes.length % 2).toBe(0); // 16-bit samples
      // A blob is sent once a quarter second of audio is captured (counted in samples, not timed).
      expect(bytes.length).toBeGreaterThanOrEqual(16000 * 2 * 0.24);
      expect(bytes.length).toBeLessThan(16000 * 2 * 1.5);
      await seeText(page.locator("article.message .transcript"), "I heard you");
      await page.getByRole("button", { name: "Stop live audio" }).click();
      await page.getByRole("button", { name: "Talk (live audio)" }).waitFor();
    },
    TIMEOUT,
  );

  it(
    "switches to the dark theme and deletes a session",
    async () => {
      await openApp("stream_agent");
      await page.getByRole("button", { name: "Toggle theme" }).click();
      await until(
        () => page.locator("html").getAttribute("data-theme"),
        (t) => t === "dark",
        "the dark theme",
      );
      const first = page.locator("li.session").first();
      const id = await first.getAttribute("data-session-id");
      await first.locator(".session-open").click();
      await agentMessage("stream_agent").first().first().waitFor();
      await h.screenshot("09-dark");
      await page.getByRole("button", { name: "Toggle theme" }).click();
      await first.getByRole("button", { name: /^Delete/ }).click();
      await seeCount(page.locator(`li[data-session-id="${id}"]`), 0);
      expect(query(page).get("session")).toBeNull();
      expect((await fetch(`${h.server.url}/apps/stream_agent/users/e2e/sessions/${id}`)).status).toBe(404);
    },
    TIMEOUT,
  );

  it("had no uncaught errors or console errors in the page", () => {
    expect(h.problems).toEqual([]);
  });
});
