import { App, FunctionNode, FunctionTool, LlmAgent, NodeTool, ToolNode, Workflow, type BaseLlm } from "@agentkit/core";
import { z } from "zod";
import { pickModel } from "../_shared/pick-model.js";

/** Expenses up to this amount are filed without asking anyone. */
export const APPROVAL_LIMIT = 100;

const Expense = z.object({
  amount: z.number().positive().describe("The amount spent"),
  currency: z.string().describe("ISO currency code, e.g. EUR"),
  purpose: z.string().describe("What the money was spent on"),
});
type Expense = z.infer<typeof Expense>;

/** Files an expense into the session state: the side effect that must happen once, and only when allowed. */
const fileExpense = new FunctionTool({
  name: "file_expense",
  description: "Files an approved expense.",
  parameters: Expense.extend({ approvedBy: z.string() }),
  execute: async (expense, toolContext) => {
    const filed = toolContext.state.get<unknown[]>("filed_expenses", []);
    const id = `EXP-${filed.length + 1}`;
    toolContext.state.set("filed_expenses", [...filed, { id, ...expense }]);
    return { status: "filed", id, ...expense };
  },
});

/** The workflow behind the tool: a policy check, a person's approval above the limit, then filing. */
export function createExpenseWorkflow(): Workflow {
  const policy = new FunctionNode("policy", (ctx, expense: Expense) => {
    ctx.state.set("pending_expense", expense);
    ctx.route = expense.amount <= APPROVAL_LIMIT ? "auto" : "needs_approval";
    return expense;
  });
  const autoApprove = new FunctionNode("auto_approve", (_ctx, expense: Expense) => ({
    ...expense,
    approvedBy: "policy",
  }));
  const approval = new FunctionNode("approval", (ctx, expense: Expense) =>
    ctx.requestInput({
      message: `Approve ${expense.amount} ${expense.currency} for ${expense.purpose}?`,
      payload: expense,
      responseSchema: z.object({ approved: z.boolean(), comment: z.string().optional() }),
    }),
  );
  const decide = new FunctionNode("decide", (ctx, answer: { approved: boolean; comment?: string }) => {
    const expense = ctx.state.get<Expense>("pending_expense")!;
    ctx.route = answer.approved ? "approved" : "rejected";
    return answer.approved ? { ...expense, approvedBy: "manager" } : { ...expense, comment: answer.comment };
  });
  const file = new ToolNode(fileExpense, { name: "file" });
  const reject = new FunctionNode("reject", (_ctx, expense: Expense & { comment?: string }) => ({
    status: "rejected",
    ...expense,
  }));
  return new Workflow({
    name: "submit_expense",
    description: "Submits an expense: filed at once up to the limit, else after a manager approves it.",
    inputSchema: Expense,
    edges: [
      ["START", policy, { auto: autoApprove, needs_approval: approval }],
      [autoApprove, file],
      [approval, decide, { approved: file, rejected: reject }],
    ],
  });
}

/** An assistant that submits expenses through the approval workflow, on the given model. */
export function createExpenseAssistant(model: BaseLlm | string): LlmAgent {
  return new LlmAgent({
    name: "expenses",
    description: "Submits expenses for approval.",
    model,
    instruction:
      "You help employees submit expenses. When the user reports an expense, call submit_expense with the " +
      "amount, the currency and the purpose, then tell the user what happened to it.",
    tools: [new NodeTool({ node: createExpenseWorkflow() })],
  });
}

/**
 * Resumable, so the approval can arrive in a later request (or after a restart): the run continues
 * inside the workflow where it paused. Runs on the offline demo model unless a real model's key is set.
 */
export const app = new App({
  name: "expense_approval",
  rootAgent: createExpenseAssistant(pickModel()),
  resumability: { isResumable: true },
});
