import { describe, expect, it } from "@jest/globals";
import { Role } from "@a2a-js/sdk";
import { createEvent, type Part } from "@agentkit/core";
import {
  A2ADataPartMetadataType,
  A2AMetadataKey,
  A2A_DATA_PART_TYPE_KEY,
  AdkMetadataKey,
  a2aMessageToContent,
  contentToA2aMessage,
  eventMetadata,
  partFromA2a,
  partToA2a,
} from "../src/index.js";

const PARTS: Part[] = [
  { text: "hello" },
  { text: "thinking", thought: true, thoughtSignature: "c2ln" },
  { inlineData: { data: Buffer.from("png bytes").toString("base64"), mimeType: "image/png", displayName: "a.png" } },
  { fileData: { fileUri: "gs://bucket/file.pdf", mimeType: "application/pdf", displayName: "file.pdf" } },
  { functionCall: { id: "c1", name: "get_weather", args: { city: "Paris" } } },
  { functionResponse: { id: "c1", name: "get_weather", response: { weather: "sunny" } } },
  { executableCode: { code: "print(1)", language: "PYTHON" } },
  { codeExecutionResult: { outcome: "OUTCOME_OK", output: "1\n" } },
];

describe("part conversion", () => {
  it("round-trips every part kind", () => {
    for (const part of PARTS) expect(partFromA2a(partToA2a(part)!)).toEqual(part);
  });

  it("uses text, raw, url and typed data parts with the adk_ metadata keys", () => {
    const [text, thought, inline, file, call, response, code, result] = PARTS.map(
      (p) => partToA2a(p, { longRunningToolIds: ["c1"] })!,
    );
    expect(text!.content).toEqual({ $case: "text", value: "hello" });
    expect(text!.metadata).toBeUndefined();
    expect(thought!.metadata).toEqual({ [AdkMetadataKey.THOUGHT]: true, [AdkMetadataKey.THOUGHT_SIGNATURE]: "c2ln" });
    expect(inline!.content?.$case).toBe("raw");
    expect(Buffer.from(inline!.content!.value as Buffer).toString()).toBe("png bytes");
    expect([inline!.mediaType, inline!.filename]).toEqual(["image/png", "a.png"]);
    expect(file!.content).toEqual({ $case: "url", value: "gs://bucket/file.pdf" });
    expect(call!.metadata).toEqual({
      [A2A_DATA_PART_TYPE_KEY]: "function_call",
      [A2AMetadataKey.IS_LONG_RUNNING]: true,
    });
    expect(response!.metadata).toEqual({ adk_type: A2ADataPartMetadataType.FUNCTION_RESPONSE });
    expect(code!.metadata).toEqual({ adk_type: "executable_code" });
    expect(result!.metadata).toEqual({ adk_type: "code_execution_result" });
    expect(result!.content).toEqual({ $case: "data", value: { outcome: "OUTCOME_OK", output: "1\n" } });
  });

  it("reads an untyped data part as its JSON text, and drops parts A2A cannot carry", () => {
    const part = partFromA2a({
      content: { $case: "data", value: { a: [1, 2] } },
      metadata: undefined,
      filename: "",
      mediaType: "application/json",
    });
    expect(part).toEqual({ text: '{"a":[1,2]}' });
    expect(partToA2a({ videoMetadata: { fps: 1 } })).toBeUndefined();
  });
});

describe("message and event conversion", () => {
  it("maps roles and parts both ways", () => {
    const message = contentToA2aMessage({ role: "user", parts: PARTS }, { contextId: "ctx" });
    expect(message.role).toBe(Role.ROLE_USER);
    expect(message.contextId).toBe("ctx");
    expect(message.parts).toHaveLength(PARTS.length);
    expect(a2aMessageToContent(message)).toEqual({ role: "user", parts: PARTS });
    expect(a2aMessageToContent({ ...message, role: Role.ROLE_AGENT }).role).toBe("model");
  });

  it("describes an event under adk_ keys", () => {
    const event = createEvent({
      author: "agent",
      invocationId: "e-1",
      branch: "root.agent",
      errorCode: "BOOM",
      errorMessage: "it broke",
      customMetadata: { k: "v" },
      groundingMetadata: { sources: [] },
    });
    expect(eventMetadata(event, { appName: "app", userId: "u", sessionId: "s" })).toEqual({
      adk_app_name: "app",
      adk_user_id: "u",
      adk_session_id: "s",
      adk_invocation_id: "e-1",
      adk_author: "agent",
      adk_event_id: event.id,
      adk_branch: "root.agent",
      adk_error_code: "BOOM",
      adk_error_message: "it broke",
      adk_custom_metadata: { k: "v" },
      adk_grounding_metadata: { sources: [] },
    });
  });
});
