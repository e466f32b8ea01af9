import { describe, expect, it } from "@jest/globals";
import { FunctionTool, InMemoryRunner, LlmAgent, type Event } from "@agentkit/core";
import { ScriptedModel } from "@agentkit/core/testing";
import { z } from "zod";
import { ReplayPlugin, ReplayVerificationError, recordingsFromYaml, recordingsToYaml } from "../src/index.js";
import { camelToSnake, snakeToCamel } from "../src/replay/key-case.js";

// Written by hand in the shape ADK's RecordingsPlugin writes: snake_case field names inside the
// request and response bodies, ADK's extra request fields, the single `llm_response` form.
const ADK_RECORDINGS = `
recordings:
  - user_message_index: 0
    agent_name: solo
    llm_recording:
      llm_request:
        model: scripted-model
        contents:
          - role: user
            parts:
              - text: Weather in Paris?
        config:
          system_instruction: |-
            Use the tool.

            You are an agent. Your internal name is "solo".
          tools:
            - function_declarations:
                - name: get_weather
                  description: Weather of a city
                  parameters_json_schema:
                    type: object
                    properties:
                      city_name:
                        type: string
                    required:
                      - city_name
        live_connect_config: {}
      llm_response:
        content:
          role: model
          parts:
            - function_call:
                name: get_weather
                args:
                  city_name: Paris
        usage_metadata:
          prompt_token_count: 12
  - user_message_index: 0
    agent_name: solo
    tool_recording:
      tool_call:
        name: get_weather
        args:
          city_name: Paris
      tool_response:
        name: get_weather
        response:
          forecast_text: sunny
  - user_message_index: 0
    agent_name: solo
    llm_recording:
      llm_request:
        model: scripted-model
        contents:
          - role: user
            parts:
              - text: Weather in Paris?
          - role: model
            parts:
              - function_call:
                  name: get_weather
                  args:
                    city_name: Paris
          - role: user
            parts:
              - function_response:
                  name: get_weather
                  response:
                    forecast_text: sunny
        config:
          system_instruction: |-
            Use the tool.

            You are an agent. Your internal name is "solo".
          tools:
            - function_declarations:
                - name: get_weather
                  description: Weather of a city
                  parameters_json_schema:
                    type: object
                    properties:
                      city_name:
                        type: string
                    required:
                      - city_name
      llm_response:
        content:
          role: model
          parts:
            - text: Sunny in Paris.
`;

function soloAgent(instruction = "Use the tool.") {
  const tool = new FunctionTool({
    name: "get_weather",
    description: "Weather of a city",
    parameters: z.object({ city_name: z.string() }),
    execute: async () => {
      throw new Error("the real tool must not run during replay");
    },
  });
  return new LlmAgent({ name: "solo", model: new ScriptedModel({ steps: [] }), instruction, tools: [tool] });
}

async function replay(instruction?: string): Promise<Event[]> {
  const runner = new InMemoryRunner({
    agent: soloAgent(instruction),
    appName: "adk_app",
    plugins: [new ReplayPlugin({ recordings: recordingsFromYaml(ADK_RECORDINGS, "adk.yaml") })],
  });
  const session = await runner.sessionService.createSession({ appName: "adk_app", userId: "u" });
  const events: Event[] = [];
  try {
    for await (const e of runner.runAsync({ userId: "u", sessionId: session.id, newMessage: "Weather in Paris?" }))
      events.push(e);
  } finally {
    await runner.close();
  }
  return events;
}

describe("ADK-format (snake_case) recordings", () => {
  it("converts field names but not user data", () => {
    const recordings = recordingsFromYaml(ADK_RECORDINGS);
    const first = recordings.recordings[0]!.llmRecording!;
    expect(first.llmRequest.config).toHaveProperty("systemInstruction");
    expect(first.llmRequest).not.toHaveProperty("liveConnectConfig");
    const tools = first.llmRequest.config.tools as { functionDeclarations: { parametersJsonSchema: unknown }[] }[];
    // A raw JSON schema keeps its property names.
    expect(tools[0]!.functionDeclarations[0]!.parametersJsonSchema).toEqual({
      type: "object",
      properties: { city_name: { type: "string" } },
      required: ["city_name"],
    });
    expect(first.llmResponses[0]).toEqual({
      content: { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city_name: "Paris" } } }] },
      usageMetadata: { promptTokenCount: 12 },
    });
    expect(recordings.recordings[1]!.toolRecording!.toolResponse!.response).toEqual({ forecast_text: "sunny" });
    expect([
      camelToSnake("systemInstruction"),
      snakeToCamel("function_call"),
      snakeToCamel("_private"),
      camelToSnake("URL"),
    ]).toEqual(["system_instruction", "functionCall", "_private", "URL"]);
  });

  it("writes snake_case bodies that read back to the same recordings", () => {
    const recordings = recordingsFromYaml(ADK_RECORDINGS);
    const yaml = recordingsToYaml(recordings);
    expect(yaml).toContain("system_instruction:");
    expect(yaml).toContain("function_call:");
    expect(yaml).toContain("function_response:");
    expect(yaml).toContain("prompt_token_count: 12");
    expect(yaml).toContain("city_name: Paris");
    expect(yaml).not.toMatch(/systemInstruction|functionCall|functionResponse|usageMetadata/);
    expect(recordingsFromYaml(yaml)).toEqual(recordings);
  });

  it("replays an ADK recording strictly", async () => {
    const events = await replay();
    expect(
      events.map((e) =>
        e.content?.parts?.map((p) => p.text ?? p.functionCall?.name ?? JSON.stringify(p.functionResponse?.response)),
      ),
    ).toEqual([["get_weather"], ['{"forecast_text":"sunny"}'], ["Sunny in Paris."]]);
  });

  it("reports a difference against an ADK recording with camelCase paths", async () => {
    const error = await replay("Use the tools.").then(
      () => undefined,
      (e: unknown) => e,
    );
    const cause = error instanceof ReplayVerificationError ? error : (error as { cause?: unknown })?.cause;
    expect(cause).toBeInstanceOf(ReplayVerificationError);
    expect((cause as ReplayVerificationError).differences.join("\n")).toMatch(
      /config\.systemInstruction: expected "Use the tool\.\\n.*got "Use the tools\./,
    );
  });
});
