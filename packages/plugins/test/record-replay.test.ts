import { afterAll, describe, expect, it } from "@jest/globals";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FunctionTool, InMemoryRunner, LlmAgent, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import {
  RecordingsPlugin,
  ReplayConfigError,
  ReplayPlugin,
  ReplayVerificationError,
  readRecordingsFile,
  recordingsFromYaml,
} from "../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "agentkit-replay-"));
afterAll(() => (process.env.KEEP_REPLAY_DIR ? undefined : rmSync(dir, { recursive: true, force: true })));

/** A two-agent app; `live` decides whether models and tools really answer. */
function buildApp(options: { instruction?: string; live: boolean }) {
  let toolCalls = 0;
  const weather = new FunctionTool({
    name: "get_weather",
    description: "Weather of a city",
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      toolCalls++;
      if (!options.live) throw new Error("the real tool must not run during replay");
      return { city, forecast: city === "Paris" ? "sunny" : "rain" };
    },
  });
  const childModel = new ScriptedModel({
    steps: options.live
      ? [ScriptedModel.functionCall("get_weather", { city: "Paris" }), ScriptedModel.text("Paris: sunny.")]
      : [],
  });
  const child = new LlmAgent({
    name: "weather_agent",
    model: childModel,
    description: "weather questions",
    instruction: options.instruction ?? "Answer with the tool.",
    tools: [weather],
  });
  const rootModel = new ScriptedModel({
    steps: options.live
      ? [
          ScriptedModel.functionCall("transfer_to_agent", { agent_name: "weather_agent" }),
          ScriptedModel.text("Hello again!"),
        ]
      : [],
  });
  const root = new LlmAgent({ name: "root", model: rootModel, instruction: "Route questions.", subAgents: [child] });
  return { root, toolCalls: () => toolCalls };
}

async function converse(runner: InMemoryRunner, messages: string[]): Promise<Event[]> {
  const session = await runner.sessionService.createSession({ appName: "replay_app", userId: "u" });
  const events: Event[] = [];
  for (const text of messages) {
    for await (const e of runner.runAsync({
      userId: "u",
      sessionId: session.id,
      newMessage: { role: "user", parts: [{ text }] },
    }))
      events.push(e);
  }
  return events;
}

const shape = (events: Event[]) =>
  events.map((e) => ({
    author: e.author,
    parts: e.content?.parts?.map((p) => p.text ?? p.functionCall?.name ?? p.functionResponse?.name),
  }));

let fileCount = 0;

/** Records the two-message conversation live into a fresh file of its own (tests share no files). */
async function record(): Promise<{ file: string; events: Event[]; toolCalls: number }> {
  const file = join(dir, `recordings-${++fileCount}.yaml`);
  const app = buildApp({ live: true });
  const runner = new InMemoryRunner({
    agent: app.root,
    appName: "replay_app",
    plugins: [new RecordingsPlugin({ file })],
  });
  const events = await converse(runner, ["Weather in Paris?", "Hi root"]);
  await runner.close();
  return { file, events, toolCalls: app.toolCalls() };
}

describe("RecordingsPlugin + ReplayPlugin", () => {
  it("records model and tool calls per agent, chronologically, into YAML", async () => {
    const { file, toolCalls } = await record();
    expect(toolCalls).toBe(1);

    const yaml = readFileSync(file, "utf8");
    expect(yaml).toContain("user_message_index: 0");
    expect(yaml).toContain("agent_name: weather_agent");
    expect(yaml).toContain("tool_recording:");
    const recordings = await readRecordingsFile(file);
    expect(
      recordings.recordings.map((r) => [
        r.userMessageIndex,
        r.agentName,
        r.llmRecording ? "llm" : `tool:${r.toolRecording!.toolCall.name}`,
      ]),
    ).toEqual([
      [0, "root", "llm"],
      [0, "root", "tool:transfer_to_agent"],
      [0, "weather_agent", "llm"],
      [0, "weather_agent", "tool:get_weather"],
      [0, "weather_agent", "llm"],
      // The second message goes to the agent that answered last (weather_agent), ADK's rule.
      [1, "weather_agent", "llm"],
    ]);
    const tool = recordings.recordings.find((r) => r.toolRecording?.toolCall.name === "get_weather")!.toolRecording!;
    expect(tool.toolCall.args).toEqual({ city: "Paris" });
    expect(tool.toolResponse!.response).toEqual({ city: "Paris", forecast: "sunny" });
  });

  it("replays the run with no model and no tool, producing the same events", async () => {
    const { file, events: recorded } = await record();
    const app = buildApp({ live: false });
    const replay = new ReplayPlugin({ file });
    const runner = new InMemoryRunner({ agent: app.root, appName: "replay_app", plugins: [replay] });
    const replayed = await converse(runner, ["Weather in Paris?", "Hi root"]);
    await runner.close();
    expect(shape(replayed)).toEqual(shape(recorded));
    expect(app.toolCalls()).toBe(0);
    expect(await replay.remaining()).toEqual({});
  });

  it("fails verification with a diff when the agent changed", async () => {
    const { file } = await record();
    const app = buildApp({ live: false, instruction: "Answer in French." });
    const runner = new InMemoryRunner({
      agent: app.root,
      appName: "replay_app",
      plugins: [new ReplayPlugin({ file })],
    });
    const error = await converse(runner, ["Weather in Paris?"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    await runner.close();
    const cause = error instanceof ReplayVerificationError ? error : (error as { cause?: unknown })?.cause;
    expect(cause).toBeInstanceOf(ReplayVerificationError);
    const verification = cause as ReplayVerificationError;
    expect(verification.differences.join("\n")).toMatch(
      /config\.systemInstruction: expected "Answer with the tool\..*got "Answer in French\./,
    );
  });

  it("fails when the run asks more than was recorded", async () => {
    const { file } = await record();
    const app = buildApp({ live: false });
    const runner = new InMemoryRunner({
      agent: app.root,
      appName: "replay_app",
      plugins: [new ReplayPlugin({ file, verify: "none" })],
    });
    const error = await converse(runner, ["Weather in Paris?", "Hi root", "one more"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    await runner.close();
    expect(String((error as Error)?.message) + String((error as { cause?: Error })?.cause?.message)).toMatch(
      /not recorded/,
    );
  });

  it("reports configuration errors clearly", async () => {
    expect(() => new ReplayPlugin({} as never)).toThrow(ReplayConfigError);
    await expect(readRecordingsFile(join(dir, "missing.yaml"))).rejects.toThrow(
      /Cannot read the recordings file .*missing\.yaml/,
    );
    expect(() => recordingsFromYaml("recordings: [", "bad.yaml")).toThrow(/bad\.yaml: not valid YAML/);
    expect(() => recordingsFromYaml("recordings:\n  - agent_name: a\n", "shape.yaml")).toThrow(
      /shape\.yaml: recordings\.0\.user_message_index/,
    );
    writeFileSync(join(dir, "broken.yaml"), "recordings: 5");
    const runner = new InMemoryRunner({
      agent: buildApp({ live: false }).root,
      appName: "replay_app",
      plugins: [new ReplayPlugin({ file: join(dir, "broken.yaml") })],
    });
    const error = await converse(runner, ["hi"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    await runner.close();
    const cause = error instanceof ReplayConfigError ? error : (error as { cause?: unknown })?.cause;
    expect(cause).toBeInstanceOf(ReplayConfigError);
  });

  it("reads ADK's single llm_response form", () => {
    const recordings = recordingsFromYaml(
      "recordings:\n  - user_message_index: 0\n    agent_name: a\n    llm_recording:\n      llm_request: { contents: " +
        "[] }\n      llm_response: { content: { role: model, parts: [ { text: hi } ] } }\n",
    );
    expect(recordings.recordings[0]!.llmRecording!.llmResponses).toEqual([
      { content: { role: "model", parts: [{ text: "hi" }] } },
    ]);
  });
});
