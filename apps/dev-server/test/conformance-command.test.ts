import { afterAll, beforeAll, describe, expect, it } from "@jest/globals";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Writable } from "node:stream";
import { main } from "../src/main.js";
import { parseCliArgs } from "../src/parse-cli-args.js";

const coreDir = resolve(import.meta.dirname, "../../../packages/core");
let root = "";
let agentsDir = "";
let casesDir = "";
let caseDir = "";

// A real agents directory: the app is a module loaded by the directory loader, with a
// ScriptedModel that calls a tool, then answers, then answers the second message.
const AGENT_MODULE = `import { FunctionTool, LlmAgent } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
const getWeather = new FunctionTool({
  name: "get_weather",
  description: "Weather of a city",
  parameters: z.object({ city: z.string() }),
  execute: async ({ city }, context) => {
    globalThis.__conformanceToolRuns = (globalThis.__conformanceToolRuns ?? 0) + 1;
    context.state.set("last_city", city);
    return { city, forecast: "sunny" };
  },
});
const model = new ScriptedModel({ steps: [ScriptedModel.functionCall("get_weather", { city: "Paris" }), ScriptedModel.text("Paris: sunny."), ScriptedModel.text("You are welcome.")] });
export const rootAgent = new LlmAgent({ name: "weather_agent", model, instruction: "Answer with the tool.", tools: [getWeather] });
`;

const SPEC = `description: The agent calls a tool, then answers a second message.
agent: weather_app
initial_state:
  unit: celsius
user_messages:
  - text: Weather in Paris?
  - text: Thanks
    state_delta:
      thanked: true
`;

const toolRuns = () => (globalThis as { __conformanceToolRuns?: number }).__conformanceToolRuns ?? 0;

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const sink = (append: (s: string) => void) =>
    new Writable({
      write: (chunk: Buffer, _enc, done) => {
        append(chunk.toString());
        done();
      },
    });
  const code = await main(args, { stdout: sink((s) => (out += s)), stderr: sink((s) => (err += s)), env: {} });
  return { code, out, err };
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "agentkit-conformance-"));
  agentsDir = join(root, "agents");
  await mkdir(join(agentsDir, "weather_app"), { recursive: true });
  await mkdir(join(agentsDir, "node_modules", "@agentkit"), { recursive: true });
  await writeFile(join(agentsDir, "package.json"), JSON.stringify({ type: "module", private: true }));
  await symlink(coreDir, join(agentsDir, "node_modules", "@agentkit", "core"), "dir");
  await symlink(realpathSync(join(coreDir, "node_modules", "zod")), join(agentsDir, "node_modules", "zod"), "dir");
  await writeFile(join(agentsDir, "weather_app", "agent.ts"), AGENT_MODULE);
  casesDir = join(root, "cases");
  caseDir = join(casesDir, "tools", "weather_call");
  await mkdir(caseDir, { recursive: true });
  await writeFile(join(caseDir, "spec.yaml"), SPEC);
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe("agentkit conformance", () => {
  it("parses its command line", () => {
    expect(parseCliArgs(["conformance", "test", "cases", "--agents-dir", "agents"])).toEqual({
      command: "conformance",
      mode: "test",
      casesDir: "cases",
      agentsDir: "agents",
    });
    expect(parseCliArgs(["conformance", "record", "cases"])).toEqual({
      command: "conformance",
      mode: "record",
      casesDir: "cases",
      agentsDir: ".",
    });
    expect(() => parseCliArgs(["conformance", "replay", "cases"])).toThrow(
      /agentkit conformance record\|test <cases_dir>/,
    );
    expect(() => parseCliArgs(["conformance", "test"])).toThrow(/Usage/);
  });

  it("records, then replays the case with no tool run, then fails readably on an altered recording or session", async () => {
    const recorded = await cli(["conformance", "record", casesDir, "--agents-dir", agentsDir]);
    expect(recorded.err).toBe("");
    expect(recorded.out).toContain("RECORDED tools/weather_call");
    expect(recorded.code).toBe(0);
    expect(toolRuns()).toBe(1);

    const recordings = await readFile(join(caseDir, "generated-recordings.yaml"), "utf8");
    expect(recordings).toContain("function_call:");
    expect(recordings).toContain("system_instruction:");
    expect(recordings).toMatch(/tool_call:\n\s+name: get_weather\n\s+args:\n\s+city: Paris/);
    const session = await readFile(join(caseDir, "generated-session.yaml"), "utf8");
    expect(session).toContain("app_name: weather_app");
    expect(session).toContain("last_city: Paris");
    expect(session).toContain("thanked: true");
    expect(session).toContain("text: You are welcome.");

    const passed = await cli(["conformance", "test", casesDir, "--agents-dir", agentsDir]);
    expect(passed.out).toContain("PASS tools/weather_call");
    expect(passed.out).toContain("1 passed, 0 failed");
    expect(passed.code).toBe(0);
    expect(toolRuns()).toBe(1);

    // The recorded tool call no longer matches what the model asks.
    await writeFile(
      join(caseDir, "generated-recordings.yaml"),
      recordings.replace(/(tool_call:\n\s+name: get_weather\n\s+args:\n\s+city:) Paris/, "$1 London"),
    );
    const badRecording = await cli(["conformance", "test", casesDir, "--agents-dir", agentsDir]);
    expect(badRecording.code).toBe(1);
    expect(badRecording.out).toContain("FAIL tools/weather_call");
    expect(badRecording.out).toMatch(
      /the tool call of agent "weather_agent" differs from the recording:\n\s+args\.city: expected "London", got "Paris"/,
    );
    expect(badRecording.out).toContain("0 passed, 1 failed");

    // The recordings are right again but the expected session says something else.
    await writeFile(join(caseDir, "generated-recordings.yaml"), recordings);
    await writeFile(
      join(caseDir, "generated-session.yaml"),
      session.replace("text: You are welcome.", "text: Goodbye."),
    );
    const badSession = await cli(["conformance", "test", casesDir, "--agents-dir", agentsDir]);
    expect(badSession.code).toBe(1);
    expect(badSession.out).toMatch(
      /the session differs from generated-session\.yaml:\n\s+events\[\d+\]\.content\.parts\[0\]\.text: expected "Goodbye\.", got "You are welcome\."/,
    );
    expect(toolRuns()).toBe(1);
  }, 60_000);

  it("reports a broken spec as a failed case and a missing cases folder as an error", async () => {
    const broken = join(casesDir, "broken", "no_agent");
    await mkdir(broken, { recursive: true });
    await writeFile(join(broken, "spec.yaml"), "user_messages: [hi]\n");
    const result = await cli(["conformance", "test", casesDir, "--agents-dir", agentsDir]);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(/spec\.yaml: agent: /);
    await rm(join(casesDir, "broken"), { recursive: true });
    const missing = await cli(["conformance", "test", join(root, "nope"), "--agents-dir", agentsDir]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/Cannot read the conformance cases directory .*nope/);
  }, 30_000);
});
