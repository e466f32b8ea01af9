import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Locator, Page } from "playwright-core";
import { FIXTURE_APPS } from "./fixture-agents.js";
import {
  failedCalls,
  query,
  seeCount,
  seeText,
  startOfficialUiHarness,
  until,
  waitForCall,
  type OfficialUiHarness,
} from "./official-ui-harness.js";
import { json, sseEvents } from "./ui-wire.js";

/**
 * ADK's own compiled dev UI (@google/adk-devtools 2.0.0, dist/browser) driven in Chromium against
 * agentkit's dev server, unchanged: every step checks what the user sees and the requests the UI
 * made (paths and bodies as in docs http-api.md), and no API call may fail.
 */
const TIMEOUT = 120_000;
let h: OfficialUiHarness;
let page: Page;
/** The tool_agent session of the chat test, reused by the eval test. */
let toolSession = "";

beforeAll(async () => {
  h = await startOfficialUiHarness();
  page = h.page;
}, TIMEOUT);

afterAll(async () => {
  await h?.close();
}, TIMEOUT);

const rows = (): Locator => page.locator("app-event-row");
const drawer = (): Locator => page.locator("mat-drawer.selector-drawer");

async function pickApp(app: string): Promise<void> {
  await page.locator("button[mattooltip='Select an app']").click();
  await drawer().getByText(app, { exact: true }).click();
  await until(
    () => query(page).get("app"),
    (a) => a === app,
    `app=${app} in the URL`,
  );
  await page.getByPlaceholder("Type a message...").waitFor();
}

async function send(text: string): Promise<void> {
  const box = page.getByPlaceholder("Type a message...");
  await box.fill(text);
  await box.press("Enter");
}

async function openSessionList(): Promise<void> {
  await page.locator("button[mattooltip='Select a session']").click();
  await seeText(drawer(), "Select a Session");
}

describe("ADK's official dev UI (@google/adk-devtools 2.0.0) against agentkit's dev server", () => {
  it(
    "redirects / to /dev-ui/, lists the fixture apps and opens the one picked",
    async () => {
      const from = h.calls.length;
      await page.goto(`${h.server.url}/`);
      expect(new URL(page.url()).pathname).toBe("/dev-ui/");
      expect(h.calls.slice(from).find((c) => c.path === "/")?.status).toBe(302);
      const apps = await waitForCall(h, "GET", "/list-apps?relative_path=./", from);
      expect(json(apps.response)).toEqual([...FIXTURE_APPS]);
      expect(json((await waitForCall(h, "GET", "/version", from)).response)).toMatchObject({
        version: expect.any(String),
      });
      await seeText(page.locator("body"), "Select an agent to begin.");

      await page.getByRole("button", { name: "Select an app" }).click();
      for (const app of FIXTURE_APPS) await drawer().getByText(app, { exact: true }).waitFor();
      await h.screenshot("01-app-list");

      const picked = h.calls.length;
      await drawer().getByText("tool_agent", { exact: true }).click();
      await until(
        () => query(page).get("app"),
        (a) => a === "tool_agent",
        "app=tool_agent in the URL",
      );
      const graph = await waitForCall(h, "GET", "/dev/apps/tool_agent/build_graph", picked);
      expect(json(graph.response)).toMatchObject({
        name: "tool_agent",
        root_agent: { name: "tool_agent", tools: [{ name: "get_weather" }] },
      });
      const image = await waitForCall(h, "GET", "/dev/apps/tool_agent/build_graph_image?dark_mode=false", picked);
      expect(json<{ dotSrc: string }>(image.response).dotSrc).toContain('"get_weather"');
      // a 200 list (not 404) is what makes the UI show its Evals tab
      expect(json((await waitForCall(h, "GET", "/dev/apps/tool_agent/eval_sets", picked)).response)).toEqual([]);
      await seeText(page.locator("button[mattooltip='Select an app']"), "tool_agent");
      await page.getByRole("tab", { name: "Evals" }).waitFor();
      await page.getByPlaceholder("Type a message...").waitFor();
    },
    TIMEOUT,
  );

  it(
    "sends a message with streaming off: the tool call, its response and the answer render",
    async () => {
      const from = h.calls.length;
      await send("weather in Paris?");
      const create = await waitForCall(h, "POST", "/apps/tool_agent/users/user/sessions", from);
      expect(create.body).toEqual({ state: { __session_metadata__: { displayName: "weather in Paris?" } } });
      toolSession = json<{ id: string }>(create.response).id;
      const run = await waitForCall(h, "POST", "/run_sse", from);
      expect(run.status).toBe(200);
      expect(run.body).toMatchObject({
        appName: "tool_agent",
        userId: "user",
        sessionId: toolSession,
        streaming: false,
        newMessage: { role: "user", parts: [{ text: "weather in Paris?" }] },
      });
      const events = sseEvents(run.response!);
      expect(events.map((e) => e.content?.parts?.[0])).toEqual([
        { functionCall: expect.objectContaining({ name: "get_weather", args: { city: "Paris" } }) },
        {
          functionResponse: expect.objectContaining({
            name: "get_weather",
            response: { city: "Paris", forecast: "sunny", celsius: 21 },
          }),
        },
        { text: "It is sunny in Paris." },
      ]);
      expect(events.some((e) => e.partial)).toBe(false);

      await seeText(rows().last(), "It is sunny in Paris.");
      await seeCount(rows(), 4);
      await seeText(rows().nth(0), "weather in Paris?");
      await seeText(rows().nth(1), 'get_weather("Paris")');
      await seeText(rows().nth(2), "get_weather");
      await until(
        () => query(page).get("session"),
        (s) => s === toolSession,
        "the new session in the URL",
      );
      const trace = await waitForCall(h, "GET", `/dev/apps/tool_agent/debug/trace/session/${toolSession}`, from);
      expect(json<{ name: string }[]>(trace.response).map((s) => s.name)).toEqual(
        expect.arrayContaining(["call_llm", "execute_tool get_weather"]),
      );
      await h.screenshot("02-tool-call");
    },
    TIMEOUT,
  );

  it(
    "clicking the function-call event shows its details, the LLM request/response of its trace span, the graph and the trace view",
    async () => {
      const run = h.calls.filter((c) => c.path === "/run_sse").at(-1)!;
      const call = sseEvents(run.response!)[0]!;
      await rows().nth(1).click();
      await seeText(page.locator(".event-details-header"), "Event 2 of 4");
      const tab = (icon: string) =>
        page.locator(".vertical-tabs-sidebar button", { has: page.locator(`mat-icon:text-is("${icon}")`) });
      const content = page.locator(".vertical-tabs-content");
      await tab("info").click();
      await seeText(content, "Function Calls");
      await seeText(content, call.id);
      await seeText(content, call.invocationId);
      await seeText(content, "Paris");
      // linked through the span's gcp.vertex.agent.event_id (session trace of http-api.md 4.8)
      await seeText(content, /Associated Spans\s+call_llm/);
      await h.screenshot("03-event-info");
      await tab("input").click(); // gcp.vertex.agent.llm_request of the call_llm span
      await seeText(content, "weather in Paris?");
      await seeText(content, "Weather of a city.");
      await tab("output").click(); // gcp.vertex.agent.llm_response
      await seeText(content, "functionCall");
      await tab("account_tree").click();
      const nodes = page.locator(".event-graph-container svg text");
      await until(
        () => nodes.allTextContents(),
        (t) => t.includes("tool_agent") && t.includes("get_weather"),
        "the agent graph with its tool",
      );
      await h.screenshot("03-event-graph");

      await page.locator("mat-button-toggle[value=traces] button").click();
      const traces = page.locator(".chat-card");
      await seeText(traces, call.invocationId);
      await seeText(traces, "call_llm");
      await seeText(traces, "get_weather");
      await h.screenshot("03-traces");
      await page.locator("mat-button-toggle[value=events] button").click();
      await seeCount(rows(), 4);
    },
    TIMEOUT,
  );

  it(
    "streams a reply with the Streaming option on: run_sse carries partial events, the chat shows one merged answer",
    async () => {
      await pickApp("stream_agent");
      await page.getByRole("button", { name: "More options" }).click();
      await page.getByRole("menuitem", { name: /Streaming/ }).click();
      expect(await page.evaluate(() => localStorage.getItem("adk-use-sse"))).toBe("true");
      await page.keyboard.press("Escape");
      const from = h.calls.length;
      await send("hi stream");
      const run = await waitForCall(h, "POST", "/run_sse", from);
      expect(run.body).toMatchObject({
        appName: "stream_agent",
        streaming: true,
        newMessage: { parts: [{ text: "hi stream" }] },
      });
      const events = sseEvents(run.response!);
      expect(events.filter((e) => e.partial).map((e) => e.content?.parts?.[0]?.text)).toEqual([
        "Hello",
        " from the",
        " **stream**",
      ]);
      expect(events.filter((e) => !e.partial).map((e) => e.content?.parts?.[0]?.text)).toEqual([
        "Hello from the **stream**",
      ]);
      await seeText(rows().last().locator("strong"), "stream");
      await seeText(rows().last(), "Hello from the stream");
      await seeCount(rows(), 2); // the user's message and one answer: the partial chunks were merged
      await h.screenshot("04-streamed");
    },
    TIMEOUT,
  );

  it(
    "lists the session, starts a new one, switches back, renames it, a reload restores it from the URL, deletes the other",
    async () => {
      const first = query(page).get("session")!;
      expect(first).toMatch(/^[\w-]{8,}$/);
      let from = h.calls.length;
      await openSessionList();
      const list = await waitForCall(h, "GET", "/apps/stream_agent/users/user/sessions", from);
      expect(json<{ id: string }[]>(list.response).map((s) => s.id)).toEqual([first]);
      const item = drawer().locator(".session-item", { hasText: "hi stream" });
      await seeText(item.locator(".session-real-id"), first);
      // lastUpdateTime is read as seconds: the date shown must be now, not 1970 or year 57000
      const shown = Date.parse(await item.locator(".session-date").innerText());
      expect(Math.abs(shown - Date.now())).toBeLessThan(10 * 60_000);
      await h.screenshot("05-session-list");
      await drawer()
        .locator("button", { has: page.locator('mat-icon:text-is("close")') })
        .click();

      await page.getByRole("button", { name: /New Session/ }).click();
      await until(
        () => query(page).get("session"),
        (s) => s === null,
        "no session in the URL",
      );
      await seeCount(rows(), 0);
      from = h.calls.length;
      await send("second chat");
      const created = await waitForCall(h, "POST", "/apps/stream_agent/users/user/sessions", from);
      const second = json<{ id: string }>(created.response).id;
      expect(second).not.toBe(first);
      await seeText(rows().last(), "Hello from the stream");
      await until(
        () => query(page).get("session"),
        (s) => s === second,
        "the second session in the URL",
      );

      from = h.calls.length;
      await openSessionList();
      const both = await waitForCall(h, "GET", "/apps/stream_agent/users/user/sessions", from);
      expect(
        json<{ id: string }[]>(both.response)
          .map((s) => s.id)
          .sort(),
      ).toEqual([first, second].sort());
      await seeCount(drawer().locator(".session-item"), 2);
      await seeText(drawer().locator(".session-item", { hasText: second }), "second chat");
      from = h.calls.length;
      await drawer().locator(".session-item", { hasText: "hi stream" }).click();
      await waitForCall(h, "GET", `/apps/stream_agent/users/user/sessions/${first}`, from);
      await until(
        () => query(page).get("session"),
        (s) => s === first,
        "the first session in the URL",
      );
      await seeText(rows().first(), "hi stream");
      await seeCount(rows(), 2);
      expect(await page.locator(".chat-card").innerText()).not.toContain("second chat");

      // rename the current session from the list (the UI PATCHes a state delta, http-api.md 4.3)
      await openSessionList();
      await drawer()
        .locator(".session-selector-current-id button", { has: page.locator('mat-icon:text-is("edit")') })
        .click();
      const name = drawer().locator("input.session-selector-current-id-value");
      await name.fill("renamed chat");
      from = h.calls.length;
      await name.press("Enter");
      const patch = await waitForCall(h, "PATCH", `/apps/stream_agent/users/user/sessions/${first}`, from);
      expect(patch.body).toEqual({ stateDelta: { __session_metadata__: { displayName: "renamed chat" } } });
      expect(json<{ state: unknown }>(patch.response).state).toMatchObject({
        __session_metadata__: { displayName: "renamed chat" },
      });
      await seeText(page.locator("button[mattooltip='Select a session']"), "renamed chat");
      await h.screenshot("05-renamed");
      // the UI does not refresh its list after a rename; reopening the drawer lists it anew
      await drawer()
        .locator("button", { has: page.locator('mat-icon:text-is("close")') })
        .click();
      from = h.calls.length;
      await openSessionList();
      await waitForCall(h, "GET", "/apps/stream_agent/users/user/sessions", from);
      await seeText(drawer().locator(".session-item", { hasText: first }).locator(".session-id"), "renamed chat");
      await drawer()
        .locator("button", { has: page.locator('mat-icon:text-is("close")') })
        .click();

      from = h.calls.length;
      await page.reload();
      await waitForCall(h, "GET", `/apps/stream_agent/users/user/sessions/${first}`, from);
      // the message, the answer and the state event the rename appended
      await seeCount(rows(), 3);
      await seeText(rows().nth(0), "hi stream");
      await seeText(rows().nth(1), "Hello from the stream");
      await seeText(rows().nth(2), "State: __session_metadata__");
      expect(query(page).get("session")).toBe(first);
      await seeText(page.locator("button[mattooltip='Select a session']"), "renamed chat");
      await h.screenshot("05-reloaded");

      // delete the other session from the list, after the UI's confirmation
      from = h.calls.length;
      await openSessionList();
      await waitForCall(h, "GET", "/apps/stream_agent/users/user/sessions", from);
      const other = drawer().locator(".session-item", { hasText: second });
      await other.hover(); // its action buttons show on hover
      await other.locator("button.delete-btn").click();
      const confirm = page.getByRole("dialog");
      await seeText(confirm, `"second chat" (${second})`);
      await confirm.getByRole("button", { name: "Delete" }).click();
      const deleted = await waitForCall(h, "DELETE", `/apps/stream_agent/users/user/sessions/${second}`, from);
      expect(deleted.status).toBe(204);
      const relisted = await waitForCall(h, "GET", "/apps/stream_agent/users/user/sessions", h.calls.indexOf(deleted));
      expect(json<{ id: string }[]>(relisted.response).map((s) => s.id)).toEqual([first]);
      await seeCount(drawer().locator(".session-item"), 1);
      await drawer()
        .locator("button", { has: page.locator('mat-icon:text-is("close")') })
        .click();
    },
    TIMEOUT,
  );

  it(
    "shows the artifact a tool saved (in the chat and the Artifacts pane, and opens it) and the state it wrote",
    async () => {
      await pickApp("artifact_agent");
      const from = h.calls.length;
      await send("save a note");
      const run = await waitForCall(h, "POST", "/run_sse", from);
      const saved = sseEvents(run.response!).find((e) => e.actions?.artifactDelta?.["note.txt"] !== undefined);
      expect(saved?.actions).toMatchObject({ artifactDelta: { "note.txt": 0 }, stateDelta: { last_note: "note.txt" } });
      const session = run.body as { sessionId: string };
      const artifact = await waitForCall(
        h,
        "GET",
        `/apps/artifact_agent/users/user/sessions/${session.sessionId}/artifacts/note.txt/versions/0`,
        from,
      );
      expect(json(artifact.response)).toEqual({
        inlineData: { mimeType: "text/plain", data: Buffer.from("hello artifact").toString("base64") },
      });
      await seeText(rows().last(), "Saved your note.");
      await seeText(page.locator(".chat-card"), "Artifact: note.txt");
      await seeText(page.locator(".chat-card"), "hello artifact");

      const pane = page.locator("mat-tab-body.mat-mdc-tab-body-active");
      await page.getByRole("tab", { name: "Artifacts" }).click();
      await seeText(pane.locator(".artifact-card .title-text"), "note.txt");
      await seeText(pane.locator(".artifact-card .version-selector"), "0");
      await seeText(pane.locator(".artifact-card .preview-text"), "hello artifact");
      await h.screenshot("06-artifacts");
      // its title opens the bytes in a new tab (a blob: URL of the artifact's MIME type)
      const [opened] = await Promise.all([
        page.context().waitForEvent("page"),
        pane.locator(".artifact-card .artifact-title-link").click(),
      ]);
      await opened.waitForLoadState();
      expect(opened.url()).toMatch(/^blob:/);
      expect((await opened.locator("body").innerText()).trim()).toBe("hello artifact");
      await opened.close();
      await page.getByRole("tab", { name: "State" }).click();
      await seeText(pane, /last_note\s*:\s*"note\.txt"/);
      await seeText(pane, /displayName\s*:\s*"save a note"/);
      await h.screenshot("06-state");
    },
    TIMEOUT,
  );

  it(
    "creates an eval set, adds the chat session as a case, runs it and shows the passing result",
    async () => {
      let from = h.calls.length;
      // a bookmarked URL reopens the tool_agent session of the chat test
      await page.goto(`${h.server.url}/dev-ui/?app=tool_agent&userId=user&session=${toolSession}`);
      await waitForCall(h, "GET", `/apps/tool_agent/users/user/sessions/${toolSession}`, from);
      await seeText(rows().last(), "It is sunny in Paris.");
      const pane = page.locator("mat-tab-body.mat-mdc-tab-body-active");
      await page.getByRole("tab", { name: "Evals" }).click();
      await pane.getByText("Create Evaluation Set", { exact: true }).click();
      const dialog = page.getByRole("dialog");
      await dialog.locator("input").fill("weather_set");
      from = h.calls.length;
      await dialog.getByRole("button", { name: "Create" }).click();
      const created = await waitForCall(h, "POST", "/dev/apps/tool_agent/eval-sets", from);
      expect(created.body).toMatchObject({ eval_set: { eval_set_id: "weather_set", eval_cases: [] } });
      expect(json((await waitForCall(h, "GET", "/dev/apps/tool_agent/eval_sets", from)).response)).toEqual([
        "weather_set",
      ]);

      from = h.calls.length;
      await pane.getByText("weather_set", { exact: true }).click();
      expect(
        json((await waitForCall(h, "GET", "/dev/apps/tool_agent/eval_sets/weather_set/evals", from)).response),
      ).toEqual([]);
      await page.getByRole("button", { name: /From Current Session/ }).click();
      await dialog.locator("input").fill("paris_case");
      from = h.calls.length;
      await dialog.getByRole("button", { name: "Create" }).click();
      const added = await waitForCall(h, "POST", "/dev/apps/tool_agent/eval_sets/weather_set/add_session", from);
      expect(added.body).toEqual({ evalId: "paris_case", sessionId: toolSession, userId: "user" });
      expect(
        json((await waitForCall(h, "GET", "/dev/apps/tool_agent/eval_sets/weather_set/evals", from)).response),
      ).toEqual(["paris_case"]);
      await seeText(pane, "paris_case");

      from = h.calls.length;
      await page.getByRole("button", { name: /Run All/ }).click();
      await waitForCall(h, "GET", "/dev/apps/tool_agent/metrics-info", from);
      await seeText(dialog, "Tool Trajectory");
      await seeText(dialog, "Response Match");
      await h.screenshot("07-eval-metrics");
      await dialog.getByRole("button", { name: "Start" }).click();
      const ran = await waitForCall(h, "POST", "/dev/apps/tool_agent/eval_sets/weather_set/run_eval", from);
      expect(ran.body).toMatchObject({
        evalIds: ["paris_case"],
        evalMetrics: expect.arrayContaining([expect.objectContaining({ metricName: "tool_trajectory_avg_score" })]),
      });
      const results = await waitForCall(h, "GET", /^\/dev\/apps\/tool_agent\/eval_results\/[^/]+$/, from);
      const result = json<{
        evalSetId: string;
        evalCaseResults: {
          evalId: string;
          finalEvalStatus: number;
          overallEvalMetricResults: { metricName: string; score: number }[];
        }[];
      }>(results.response);
      expect(result.evalSetId).toBe("weather_set");
      expect(result.evalCaseResults).toEqual([expect.objectContaining({ evalId: "paris_case", finalEvalStatus: 1 })]);
      expect(result.evalCaseResults[0]!.overallEvalMetricResults.map((m) => [m.metricName, m.score])).toEqual([
        ["tool_trajectory_avg_score", 1],
        ["response_match_score", 1],
      ]);
      await seeText(pane, "1 PASS");
      await seeText(pane, "paris_case");
      await seeText(pane, "Tool Trajectory");
      await h.screenshot("07-eval-result");
      // the case's result: the replayed session (sessionDetails) and each metric's score / threshold
      await pane.getByText("paris_case", { exact: true }).click();
      const chat = page.locator(".chat-card");
      await seeText(chat, /Tool Trajectory\s*1\.00\s*\/\s*1\.00/);
      await seeText(chat, /Response Match\s*1\.00\s*\/\s*0\.70/);
      await seeText(rows().last(), "It is sunny in Paris.");
      await h.screenshot("07-eval-case");
    },
    TIMEOUT,
  );

  it(
    "no API call failed and no unexpected console error or uncaught exception happened over the whole run",
    async () => {
      expect(h.calls.length).toBeGreaterThan(30);
      // requests the browser itself cancelled on a navigation (reload, goto) are not server failures
      expect(await failedCalls(h)).toEqual([]);
      expect(h.problems).toEqual([]);
    },
    TIMEOUT,
  );
});
