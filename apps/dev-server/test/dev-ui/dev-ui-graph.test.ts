import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import type { Locator, Page } from "playwright-core";
import { join } from "node:path";
import { query, SCREENSHOTS, seeCount, seeText, sendMessage, startHarness, until, type Harness } from "./harness.js";

const TIMEOUT = 90_000;
let h: Harness;
let page: Page;

beforeAll(async () => {
  h = await startHarness({ apps: ["expense_flow"] });
  page = h.page;
}, TIMEOUT);

afterAll(async () => {
  await h?.close();
}, TIMEOUT);

const NODES = ["check", "lookup", "writer", "gather", "approval", "decide", "pay/charge", "pay/receipt", "notify"].map(
  (n) => `expense_flow/${n}`,
);

const panel = () => page.locator(".graph-panel");

/** The run status of each drawn node, by its id (the SVG node's title). */
async function drawnStatus(): Promise<Record<string, string | null>> {
  return panel()
    .locator("svg g.node")
    .evaluateAll((nodes) =>
      Object.fromEntries(
        nodes.map((n) => [n.querySelector("title")?.textContent ?? "", n.getAttribute("data-status")]),
      ),
    );
}

/** Waits until the drawn graph shows these statuses (null: not run). */
function seeStatus(expected: Record<string, string | null>): Promise<Record<string, string | null>> {
  return until(
    drawnStatus,
    (status) => Object.entries(expected).every(([node, s]) => status[`expense_flow/${node}`] === s),
    `node status ${JSON.stringify(expected)}`,
    30_000,
  );
}

/** Clicks in the Graph tab and resolves with the /run_sse request body it sent. */
async function answerIn(target: Locator): Promise<Record<string, unknown>> {
  const [request] = await Promise.all([page.waitForRequest((r) => r.url().endsWith("/run_sse")), target.click()]);
  return JSON.parse(request.postData() ?? "{}") as Record<string, unknown>;
}

describe("the Graph tab in Chromium against the dev server (a resumable workflow app)", () => {
  it(
    "draws the workflow: every node by its path, routes, the default route, the loop bound, the join and the nested workflow",
    async () => {
      await page.goto(`${h.server.url}/dev-ui/?app=expense_flow&userId=e2e&tab=graph`);
      await page.getByRole("heading", { name: "Agent graph" }).waitFor();
      const status = await until(drawnStatus, (s) => NODES.every((n) => n in s), "every workflow node drawn");
      expect(Object.values(status).every((s) => s === null)).toBe(true); // no run yet
      const svgText = (await panel().locator("svg").textContent()) ?? "";
      for (const label of [
        "approved",
        "default",
        "ask_again ≤ 2×",
        "expense_flow (workflow)",
        "pay (workflow)",
        "START",
      ])
        expect(svgText).toContain(label);
      // shapes say what a node is: the join is a diamond, the tool node a component, the agent an ellipse
      const shape = (id: string) =>
        panel()
          .locator("svg g.node", { has: page.locator("title", { hasText: new RegExp(`^${id}$`) }) })
          .locator("ellipse, polygon, path")
          .first()
          .evaluate((el) => el.tagName);
      expect(await shape("expense_flow/writer")).toBe("ellipse");
      expect(await shape("expense_flow/gather")).toBe("polygon");
    },
    TIMEOUT,
  );

  it(
    "marks the paused node; answering the confirmation and the approval in the Graph tab completes the run",
    async () => {
      await sendMessage(h, "I spent 250 EUR");
      expect(query(page).get("tab")).toBe("graph");
      // the tool node waits for its confirmation while the agent on the other branch finished
      await seeStatus({ check: "completed", writer: "completed", lookup: "waiting", gather: null, approval: null });
      await seeText(panel().getByRole("listitem").filter({ hasText: "expense_flow/lookup" }), "waiting for you");
      const confirmation = panel().getByRole("region", { name: "Confirmation requested" });
      await seeText(confirmation, "lookup_budget");
      await h.screenshot("graph-01-paused-on-confirmation");

      const first = await answerIn(confirmation.getByRole("button", { name: "Approve" }));
      expect(first).toMatchObject({
        appName: "expense_flow",
        newMessage: {
          parts: [{ functionResponse: { name: "adk_request_confirmation", response: { confirmed: true } } }],
        },
      });
      expect(first.functionCallEventId).toBeTruthy();
      // the run continues to the manager's approval and pauses there
      await seeStatus({ lookup: "completed", gather: "completed", approval: "waiting", decide: null });
      const input = panel().getByRole("form", { name: "Answer adk_request_input" });
      await seeText(input, "Approve 250 EUR?");
      await panel().screenshot({ path: join(SCREENSHOTS, "graph-panel-paused.png") });
      await input.getByRole("textbox").fill('{"approved": true}');
      const second = await answerIn(input.getByRole("button", { name: "Send response" }));
      expect(second).toMatchObject({
        newMessage: { parts: [{ functionResponse: { name: "adk_request_input", response: { approved: true } } }] },
      });
      await seeStatus({
        check: "completed",
        lookup: "completed",
        writer: "completed",
        gather: "completed",
        approval: "completed",
        decide: "completed",
        "pay/charge": "completed",
        "pay/receipt": "completed",
        notify: null,
      });
      await seeCount(panel().getByRole("region", { name: "Waiting for you" }), 0);
      // the three invocations are one run
      await seeCount(panel().getByRole("combobox", { name: "Run" }).locator("option"), 1);
      await h.screenshot("graph-02-completed");
      await panel().screenshot({ path: join(SCREENSHOTS, "graph-panel.png") });
    },
    TIMEOUT,
  );

  it(
    "rewinds a turn from the chat: the turn and its pending request are gone, also after a reload",
    async () => {
      await sendMessage(h, "I spent 40 EUR");
      const runs = panel().getByRole("combobox", { name: "Run" }).locator("option");
      await seeCount(runs, 2);
      await seeStatus({ lookup: "waiting", approval: null, "pay/charge": null });
      const turn = page.locator("article.message.from-user", { hasText: "I spent 40 EUR" });
      await seeCount(turn, 1);
      const [rewind] = await Promise.all([
        page.waitForResponse((r) => r.url().endsWith("/rewind")),
        turn.getByRole("button", { name: "Rewind to before this message" }).click(),
      ]);
      expect(rewind.status()).toBe(200);
      await seeCount(turn, 0);
      await seeCount(runs, 1);
      // the first run is shown again, completed; the rewound run's confirmation is no longer asked for
      await seeStatus({ approval: "completed", "pay/receipt": "completed" });
      await seeCount(page.getByRole("region", { name: "Confirmation requested" }), 0);
      await seeCount(page.locator("article.message.from-user", { hasText: "I spent 250 EUR" }), 1);

      // the server holds the rewind: a reload shows the same
      const session = query(page).get("session")!;
      const stored = (await (
        await fetch(`${h.server.url}/apps/expense_flow/users/e2e/sessions/${session}`)
      ).json()) as { events: { actions?: { rewindBeforeInvocationId?: string } }[] };
      expect(stored.events.at(-1)?.actions?.rewindBeforeInvocationId).toMatch(/^e-/);
      await page.reload();
      await page.getByRole("heading", { name: "Agent graph" }).waitFor();
      await seeCount(page.locator("article.message.from-user", { hasText: "I spent 250 EUR" }), 1);
      await seeCount(page.locator("article.message.from-user", { hasText: "I spent 40 EUR" }), 0);
      await seeStatus({ approval: "completed", lookup: "completed" });
      expect(h.problems).toEqual([]);
    },
    TIMEOUT,
  );
});
