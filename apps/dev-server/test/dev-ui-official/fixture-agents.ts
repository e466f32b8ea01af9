import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const coreDir = resolve(import.meta.dirname, "../../../../packages/core");

/**
 * Scripted models that answer from the request rather than from a fixed list, so an app can be
 * run any number of times (the chat, then the eval run that replays the session).
 */
const HELPERS = `import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
export const usage = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };
export function lastResponse(request) {
  const last = request.contents[request.contents.length - 1];
  return last?.parts?.find((p) => p.functionResponse)?.functionResponse;
}
export function repeat(step, n = 40) { return Array.from({ length: n }, () => step); }
export { FunctionTool, LlmAgent, ScriptedModel };
`;

const AGENTS: Record<string, string> = {
  // Streams a markdown answer in three chunks (partial events when the UI asks for streaming).
  "stream_agent/agent.js": `import { LlmAgent, ScriptedModel, repeat, usage } from "../_shared/helpers.js";
export const rootAgent = new LlmAgent({
  name: "stream_agent",
  description: "Streams a markdown answer.",
  model: new ScriptedModel({ delayMs: 30, steps: repeat({ chunks: ["Hello", " from the", " **stream**"], final: { usageMetadata: usage } }) }),
});
`,
  // Calls a function tool, then answers with its result.
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
};

export const FIXTURE_APPS = ["artifact_agent", "stream_agent", "tool_agent"] as const;

export interface FixtureAgents {
  dir: string;
  cleanup(): Promise<void>;
}

/** A temporary agents directory whose `@agentkit/core` is the workspace's (same module instances as the server). */
export async function makeFixtureAgents(): Promise<FixtureAgents> {
  const dir = await mkdtemp(join(tmpdir(), "agentkit-adk-ui-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ type: "module", private: true }));
  await mkdir(join(dir, "node_modules", "@agentkit"), { recursive: true });
  await symlink(coreDir, join(dir, "node_modules", "@agentkit", "core"), "dir");
  await mkdir(join(dir, "_shared"));
  await writeFile(join(dir, "_shared", "helpers.js"), HELPERS);
  for (const [path, source] of Object.entries(AGENTS)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), source);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
