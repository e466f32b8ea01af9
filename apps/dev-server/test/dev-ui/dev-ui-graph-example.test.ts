import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { seeCount, seeText, sendMessage, startHarness, until, type Harness } from "./harness.js";

// The expense_approval example on the offline demo model: its workflow runs behind a NodeTool, so
// the paused node is known from the checkpoint the assistant's pause stored.
const examples = fileURLToPath(new URL("../../../../examples/agents", import.meta.url));
const TIMEOUT = 90_000;
const KEYS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "OLLAMA_HOST",
  "GOOGLE_API_KEY",
  "GEMINI_API_KEY",
  "AGENTKIT_EXAMPLE_MODEL",
];
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
let h: Harness;
let page: Page;

beforeAll(async () => {
  // The demo model answers offline; no real key may pick another model.
  for (const k of KEYS) delete process.env[k];
  h = await startHarness({ agentsDir: examples });
  page = h.page;
}, TIMEOUT);

afterAll(async () => {
  await h?.close();
  for (const [k, v] of Object.entries(saved)) if (v !== undefined) process.env[k] = v;
}, TIMEOUT);

const WF = "submit_expense/submit_expense";
const panel = () => page.locator(".graph-panel");
const drawnStatus = () =>
  panel()
    .locator("svg g.node")
    .evaluateAll((nodes) =>
      Object.fromEntries(
        nodes.map((n) => [n.querySelector("title")?.textContent ?? "", n.getAttribute("data-status")]),
      ),
    );
const seeStatus = (expected: Record<string, string | null>) =>
  until(
    drawnStatus,
    (s) => Object.entries(expected).every(([node, v]) => s[node] === v),
    `node status ${JSON.stringify(expected)}`,
    30_000,
  );

describe("the Graph tab on the expense_approval example", () => {
  it(
    "draws the assistant, its NodeTool and the workflow behind it; the manager's approval pauses it and is answered in the tab",
    async () => {
      await page.goto(`${h.server.url}/dev-ui/?app=expense_approval&userId=e2e&tab=graph`);
      await page.getByRole("heading", { name: "Agent graph" }).waitFor();
      const nodes = [
        "expenses",
        "submit_expense",
        ...["policy", "auto_approve", "approval", "decide", "file", "reject"].map((n) => `${WF}/${n}`),
      ];
      await until(drawnStatus, (s) => nodes.every((n) => n in s), "the assistant and the workflow drawn", 30_000);
      const svgText = (await panel().locator("svg").textContent()) ?? "";
      for (const route of ["auto", "needs_approval", "approved", "rejected"]) expect(svgText).toContain(route);

      await sendMessage(h, "I spent 250 EUR on train tickets");
      await seeStatus({
        expenses: "waiting",
        submit_expense: "waiting",
        [`${WF}/policy`]: "completed",
        [`${WF}/approval`]: "waiting",
        [`${WF}/auto_approve`]: null,
        [`${WF}/file`]: null,
      });
      const form = panel().getByRole("form", { name: "Answer adk_request_input" });
      await seeText(form, "Approve 250 EUR for train tickets?");
      await form.getByRole("textbox").fill('{"approved": true}');
      await Promise.all([
        page.waitForRequest((r) => r.url().endsWith("/run_sse")),
        form.getByRole("button", { name: "Send response" }).click(),
      ]);
      await seeText(
        page.locator('article.message[data-author="expenses"]').last(),
        "filed as EXP-1 (approved by manager)",
      );
      await seeStatus({ expenses: "completed", submit_expense: "completed", [`${WF}/approval`]: "completed" });
      await seeCount(panel().getByRole("form", { name: "Answer adk_request_input" }), 0);
      await h.screenshot("graph-example-answered");
      expect(h.problems).toEqual([]);
    },
    TIMEOUT,
  );
});
