import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const coreDir = resolve(import.meta.dirname, "../../../../packages/core");

/**
 * The scripted models answer from the request (not a fixed list), so each app can be run
 * any number of times (chat, then the eval run that replays the session).
 */
const HELPERS = `import { App, DEFAULT_ROUTE, Edge, FunctionNode, FunctionTool, JoinNode, LlmAgent, ToolNode, Workflow } from "@agentkit/core";
import { ScriptedLiveModel, ScriptedModel } from "@agentkit/core/testing";
export const usage = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
export function lastResponse(request) {
  const last = request.contents[request.contents.length - 1];
  return last?.parts?.find((p) => p.functionResponse)?.functionResponse;
}
export function repeat(step, n = 40) { return Array.from({ length: n }, () => step); }
export { App, DEFAULT_ROUTE, Edge, FunctionNode, FunctionTool, JoinNode, LlmAgent, ScriptedLiveModel, ScriptedModel, ToolNode, Workflow };
`;

const AGENTS: Record<string, string> = {
  // Streams its answer in three chunks (partial events when streaming is on).
  "stream_agent/agent.js": `import { LlmAgent, ScriptedModel, repeat, usage } from "../_shared/helpers.js";
export const rootAgent = new LlmAgent({
  name: "stream_agent",
  description: "Streams a markdown answer.",
  model: new ScriptedModel({ delayMs: 30, steps: repeat({ chunks: ["Hello", " from the", " **stream**"], final: { usageMetadata: usage } }) }),
});
`,
  // Calls a plain function tool, then answers with its result.
  "tool_agent/agent.js": `import { FunctionTool, LlmAgent, ScriptedModel, lastResponse, repeat, usage } from "../_shared/helpers.js";
const getWeather = new FunctionTool({
  name: "get_weather",
  description: "Weather of a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  execute: ({ city }) => ({ city, forecast: "sunny", celsius: 21 }),
});
export const rootAgent = new LlmAgent({
  name: "tool_agent",
  description: "Answers with the weather tool.",
  tools: [getWeather],
  model: new ScriptedModel({
    steps: repeat((request) => {
      const response = lastResponse(request);
      if (response) return { ...ScriptedModel.text(\`It is \${response.response.forecast} in \${response.response.city}.\`), usageMetadata: usage };
      return { ...ScriptedModel.functionCall("get_weather", { city: "Paris" }), usageMetadata: usage };
    }),
  }),
});
`,
  // A long-running tool: returns nothing, the client answers it.
  "long_agent/agent.js": `import { FunctionTool, LlmAgent, ScriptedModel, lastResponse, repeat } from "../_shared/helpers.js";
const askManager = new FunctionTool({
  name: "ask_manager",
  description: "Asks a human manager; the answer comes later.",
  parameters: { type: "object", properties: { question: { type: "string" } } },
  isLongRunning: true,
  execute: () => undefined,
});
export const rootAgent = new LlmAgent({
  name: "long_agent",
  tools: [askManager],
  model: new ScriptedModel({
    steps: repeat((request) => {
      const response = lastResponse(request);
      if (response) return ScriptedModel.text("The manager said: " + JSON.stringify(response.response));
      return ScriptedModel.functionCall("ask_manager", { question: "May I order 3 laptops?" });
    }),
  }),
});
`,
  // A tool that needs the user's approval first.
  "confirm_agent/agent.js": `import { FunctionTool, LlmAgent, ScriptedModel, lastResponse, repeat } from "../_shared/helpers.js";
const transfer = new FunctionTool({
  name: "transfer_money",
  description: "Moves money.",
  parameters: { type: "object", properties: { amount: { type: "number" } } },
  requireConfirmation: true,
  execute: ({ amount }) => ({ done: true, amount }),
});
export const rootAgent = new LlmAgent({
  name: "confirm_agent",
  tools: [transfer],
  model: new ScriptedModel({
    steps: repeat((request) => {
      const response = lastResponse(request);
      if (response) return ScriptedModel.text("Transfer result: " + JSON.stringify(response.response));
      return ScriptedModel.functionCall("transfer_money", { amount: 10 });
    }),
  }),
});
`,
  // Saves a text artifact and writes a state key through a tool.
  "artifact_agent/agent.js": `import { FunctionTool, LlmAgent, ScriptedModel, lastResponse, repeat } from "../_shared/helpers.js";
const saveNote = new FunctionTool({
  name: "save_note",
  description: "Saves a note as an artifact.",
  execute: async (_args, toolContext) => {
    const version = await toolContext.saveArtifact("note.txt", { inlineData: { mimeType: "text/plain", data: Buffer.from("hello artifact").toString("base64") } });
    toolContext.state.set("last_note", "note.txt");
    return { saved: "note.txt", version };
  },
});
export const rootAgent = new LlmAgent({
  name: "artifact_agent",
  tools: [saveNote],
  model: new ScriptedModel({
    steps: repeat((request) => (lastResponse(request) ? ScriptedModel.text("Saved your note.") : ScriptedModel.functionCall("save_note", {}))),
  }),
});
`,
  // The model call fails.
  "error_agent/agent.js": `import { LlmAgent, ScriptedModel, repeat } from "../_shared/helpers.js";
export const rootAgent = new LlmAgent({
  name: "error_agent",
  model: new ScriptedModel({ steps: repeat({ error: new Error("the model exploded") }) }),
});
`,
  // A callback that throws once the model answered: the run fails
  // after the stream started, so it ends with an error frame.
  "crash_agent/agent.js": `import { LlmAgent, ScriptedModel, repeat } from "../_shared/helpers.js";
export const rootAgent = new LlmAgent({
  name: "crash_agent",
  model: new ScriptedModel({ steps: repeat(ScriptedModel.text("never shown")) }),
  afterModelCallback: () => { throw new Error("the callback blew up"); },
});
`,
  // Hands the conversation to a sub-agent (an agent transfer).
  "transfer_agent/agent.js": `import { LlmAgent, ScriptedModel, repeat } from "../_shared/helpers.js";
const helper = new LlmAgent({ name: "billing_helper", description: "Answers billing questions.", model: new ScriptedModel({ steps: repeat(ScriptedModel.text("Billing here: your invoice is paid. See [the docs](https://example.com/billing).<script>window.__xss = 1</script><b onclick='window.__xss = 2'>ok</b>")) }) });
export const rootAgent = new LlmAgent({
  name: "transfer_agent",
  subAgents: [helper],
  model: new ScriptedModel({ steps: repeat(ScriptedModel.functionCall("transfer_to_agent", { agent_name: "billing_helper" })) }),
});
`,
  // A resumable workflow: a function node, a tool node that needs confirmation and an LLM agent
  // in parallel, a join, a person's approval (requestInput), routes with a default, a bounded
  // loop edge and a nested workflow.
  "expense_flow/agent.js": `import { App, DEFAULT_ROUTE, Edge, FunctionNode, FunctionTool, JoinNode, LlmAgent, ScriptedModel, ToolNode, Workflow, repeat } from "../_shared/helpers.js";
const check = new FunctionNode("check", (ctx, input) => {
  const text = (input?.parts ?? []).map((p) => p.text ?? "").join("");
  const amount = Number(/[0-9]+/.exec(text)?.[0] ?? 0);
  ctx.state.set("amount", amount);
  return { amount };
});
const budget = new FunctionTool({
  name: "lookup_budget",
  description: "Reads the team budget.",
  parameters: { type: "object", properties: { amount: { type: "number" } } },
  requireConfirmation: true,
  execute: ({ amount }) => ({ budget: 500, amount }),
});
const lookup = new ToolNode(budget, { name: "lookup" });
const writer = new LlmAgent({ name: "writer", description: "Writes a note.", model: new ScriptedModel({ steps: repeat(ScriptedModel.text("The expense looks fine.")) }) });
const gather = new JoinNode({ name: "gather" });
const approval = new FunctionNode("approval", (ctx, input) =>
  ctx.requestInput({ message: "Approve " + ctx.state.get("amount") + " EUR?", payload: input }),
);
const decide = new FunctionNode("decide", (ctx, answer) => {
  ctx.route = answer?.again ? "ask_again" : answer?.approved ? "approved" : "rejected";
  return answer;
});
const charge = new FunctionNode("charge", (ctx) => ({ charged: ctx.state.get("amount") }));
const receipt = new FunctionNode("receipt", (_ctx, input) => "Receipt for " + input.charged + " EUR");
const pay = new Workflow({ name: "pay", description: "Charges and writes a receipt.", edges: [["START", charge, receipt]] });
const notify = new FunctionNode("notify", () => "Rejected");
const rootAgent = new Workflow({
  name: "expense_flow",
  edges: [
    ["START", check, [lookup, writer], gather, approval, decide, { approved: pay, [DEFAULT_ROUTE]: notify }],
    new Edge({ from: decide, to: approval, route: "ask_again", maxTraversals: 2 }),
  ],
});
export const app = new App({ name: "expense_flow", rootAgent, resumability: { isResumable: true } });
`,
  // Live audio: answers every microphone blob with 0.1 s of 24 kHz PCM and a transcription.
  "live_agent/agent.js": `import { LlmAgent, ScriptedLiveModel, repeat } from "../_shared/helpers.js";
const audio = { content: { role: "model", parts: [{ inlineData: { mimeType: "audio/pcm;rate=24000", data: Buffer.alloc(4800).toString("base64") } }] } };
export const rootAgent = new LlmAgent({
  name: "live_agent",
  model: new ScriptedLiveModel({ replyToRealtime: true, replies: repeat([audio, { outputTranscription: { text: "I heard you", finished: true }, turnComplete: true }], 400) }),
});
`,
};

export interface FixtureAgents {
  dir: string;
  cleanup(): Promise<void>;
}

/**
 * A temporary agents directory whose `@agentkit/core` is the workspace's (same module instances
 * as the server), with every fixture app or only the named ones.
 */
export async function makeFixtureAgents(only?: readonly string[]): Promise<FixtureAgents> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-dev-ui-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  await mkdir(join(dir, "node_modules", "@agentkit"), { recursive: true });
  await symlink(coreDir, join(dir, "node_modules", "@agentkit", "core"), "dir");
  await mkdir(join(dir, "_shared"));
  await writeFile(join(dir, "_shared", "helpers.js"), HELPERS);
  for (const [path, source] of Object.entries(AGENTS)) {
    if (only && !only.includes(path.split("/")[0]!)) continue;
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), source);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
