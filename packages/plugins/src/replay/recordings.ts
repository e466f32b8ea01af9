import { readFile, rename, writeFile } from "node:fs/promises";
import { parse, stringify } from "yaml";
import { z } from "zod";
import type { Content, FunctionCall, FunctionResponse, LlmResponse } from "@agentkit/core";
import { toCamelCase, toSnakeCase } from "./key-case.js";
import { ReplayConfigError } from "./replay-errors.js";

/** The serializable part of a model request (tool instances are replaced by their declarations). */
export interface RecordedLlmRequest {
  model?: string;
  contents: Content[];
  config: Record<string, unknown>;
}

export interface LlmRecording {
  llmRequest: RecordedLlmRequest;
  /** Every response of the call in order (streamed partials, then the final one). */
  llmResponses: LlmResponse[];
}

export interface ToolRecording {
  toolCall: FunctionCall;
  toolResponse?: FunctionResponse;
  /**
   * The session state the tool wrote (agentkit's addition, `state_delta` on disk): replay
   * applies it, so a replayed session matches the recorded one although the tool does not run.
   */
  stateDelta?: Record<string, unknown>;
}

/** One model call or one tool call, by one agent, during the user message of that index. */
export interface Recording {
  userMessageIndex: number;
  agentName: string;
  llmRecording?: LlmRecording;
  toolRecording?: ToolRecording;
}

/** Everything a run asked of models and tools, chronologically. */
export interface Recordings {
  recordings: Recording[];
}

// On disk every field name is snake_case as in ADK's conformance folders
// (`generated-recordings.yaml`), inside the recorded requests and responses too
// (`system_instruction`, `function_call`); user data (args, tool results) keeps its keys.
// Files with camelCase bodies (agentkit before 0.2) are still read. `llm_response` (one) is
// read as a one-item list.
const recordingFileSchema = z.object({
  recordings: z
    .array(
      z.object({
        user_message_index: z.number().int().min(0),
        agent_name: z.string().min(1),
        llm_recording: z
          .object({
            llm_request: z
              .object({
                model: z.string().optional(),
                contents: z.array(z.any()),
                config: z.record(z.string(), z.any()).optional(),
              })
              .loose(),
            llm_responses: z.array(z.record(z.string(), z.any())).optional(),
            llm_response: z.record(z.string(), z.any()).optional(),
          })
          .optional(),
        tool_recording: z
          .object({
            tool_call: z.object({
              name: z.string(),
              id: z.string().optional(),
              args: z.record(z.string(), z.any()).optional(),
            }),
            tool_response: z
              .object({
                name: z.string(),
                id: z.string().optional(),
                response: z.record(z.string(), z.any()).optional(),
              })
              .optional(),
            state_delta: z.record(z.string(), z.any()).optional(),
          })
          .optional(),
      }),
    )
    .default([]),
});

/** Recordings as the YAML text of a recordings file. */
export function recordingsToYaml(recordings: Recordings): string {
  const file = {
    recordings: recordings.recordings.map((r) => ({
      user_message_index: r.userMessageIndex,
      agent_name: r.agentName,
      ...(r.llmRecording
        ? {
            llm_recording: {
              llm_request: toSnakeCase(r.llmRecording.llmRequest),
              llm_responses: r.llmRecording.llmResponses.map(toSnakeCase),
            },
          }
        : {}),
      ...(r.toolRecording
        ? {
            tool_recording: {
              tool_call: toSnakeCase(r.toolRecording.toolCall),
              ...(r.toolRecording.toolResponse ? { tool_response: toSnakeCase(r.toolRecording.toolResponse) } : {}),
              ...(r.toolRecording.stateDelta ? { state_delta: r.toolRecording.stateDelta } : {}),
            },
          }
        : {}),
    })),
  };
  return stringify(JSON.parse(JSON.stringify(file)) as unknown, { lineWidth: 0 });
}

/** Parses and validates a recordings file's text; `source` names it in errors. */
export function recordingsFromYaml(text: string, source = "recordings"): Recordings {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (error) {
    throw new ReplayConfigError(`${source}: not valid YAML: ${(error as Error).message}`, { cause: error });
  }
  const parsed = recordingFileSchema.safeParse(raw ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ReplayConfigError(`${source}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  return {
    recordings: parsed.data.recordings.map((r) => {
      const out: Recording = { userMessageIndex: r.user_message_index, agentName: r.agent_name };
      if (r.llm_recording) {
        const responses =
          r.llm_recording.llm_responses ?? (r.llm_recording.llm_response ? [r.llm_recording.llm_response] : []);
        const request = toCamelCase(r.llm_recording.llm_request) as {
          model?: string;
          contents: Content[];
          config?: Record<string, unknown>;
        };
        out.llmRecording = {
          // Only what agentkit compares: ADK's extra request fields (live_connect_config, ...) are dropped.
          llmRequest: {
            ...(request.model !== undefined ? { model: request.model } : {}),
            contents: request.contents,
            config: request.config ?? {},
          },
          llmResponses: responses.map(toCamelCase) as LlmResponse[],
        };
      }
      if (r.tool_recording) {
        out.toolRecording = {
          toolCall: toCamelCase(r.tool_recording.tool_call) as FunctionCall,
          ...(r.tool_recording.tool_response
            ? { toolResponse: toCamelCase(r.tool_recording.tool_response) as FunctionResponse }
            : {}),
          ...(r.tool_recording.state_delta ? { stateDelta: r.tool_recording.state_delta } : {}),
        };
      }
      return out;
    }),
  };
}

export async function readRecordingsFile(file: string): Promise<Recordings> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new ReplayConfigError(`Cannot read the recordings file ${file}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return recordingsFromYaml(text, file);
}

/** Writes atomically (temp file + rename), so a crash never leaves half a file. */
export async function writeRecordingsFile(file: string, recordings: Recordings): Promise<void> {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(temp, recordingsToYaml(recordings), "utf8");
  await rename(temp, file);
}
