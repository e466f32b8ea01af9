import {
  AgentTool,
  BasePlugin,
  type BaseTool,
  type LlmResponse,
  type BeforeModelHookArgs,
  type BeforeToolHookArgs,
} from "@agentkit/core";
import { diffValues } from "./request-diff.js";
import { readRecordingsFile, type Recording, type Recordings } from "./recordings.js";
import { serializableRequest } from "./recordings-plugin.js";
import { ReplayConfigError, ReplayVerificationError } from "./replay-errors.js";

export type ReplayPluginOptions = (
  | { file: string; recordings?: undefined }
  | { recordings: Recordings; file?: undefined }
) & {
  /**
   * `strict` (default): each model request must equal the recorded one (contents, system
   * instruction, tools, config) and each tool call its recorded name and args; `none`: serve
   * in order without comparing.
   */
  verify?: "strict" | "none";
  /** Plugin name (default `replay`). */
  name?: string;
};

// Generated per run, so never compared: call ids, event timestamps.
const IGNORED_KEYS = new Set(["id", "timestamp"]);

// Tools whose effect is on the run itself (transfer, loop exit) or that run an agent whose own
// model calls are replayed: they run for real, after their call is checked against the recording.
const LIVE_TOOL_NAMES = new Set(["transfer_to_agent", "exit_loop"]);

function runsLive(tool: BaseTool): boolean {
  return tool instanceof AgentTool || LIVE_TOOL_NAMES.has(tool.name);
}

/**
 * Serves model answers and tool results from recordings instead of calling them, checking
 * that the run asks exactly what was recorded: a conformance test of agent behaviour with no
 * model and no side effects. Each agent consumes its own recordings in order. Tools that act on
 * the run (`transfer_to_agent`, `exit_loop`) and `AgentTool`s still run after their call is
 * verified; any other tool is not run: its recorded result is returned and the session state
 * it wrote (`stateDelta`) applied; other side effects (artifacts, memory) are not replayed.
 */
export class ReplayPlugin extends BasePlugin {
  private readonly verify: "strict" | "none";
  private readonly source: string;
  private loaded?: Promise<Map<string, Recording[]>>;
  private readonly fileOrRecordings: string | Recordings;

  constructor(options: ReplayPluginOptions) {
    super(options?.name ?? "replay");
    if (!options || (options.file === undefined && options.recordings === undefined)) {
      throw new ReplayConfigError("ReplayPlugin needs { file } (a recordings YAML) or { recordings }.");
    }
    if (options.recordings !== undefined && !Array.isArray(options.recordings.recordings)) {
      throw new ReplayConfigError("ReplayPlugin: recordings must be { recordings: Recording[] }.");
    }
    this.verify = options.verify ?? "strict";
    this.fileOrRecordings = options.file ?? options.recordings!;
    this.source = options.file ?? "the given recordings";
  }

  /** Recordings not served yet, per agent (empty after a complete replay). */
  async remaining(): Promise<Record<string, number>> {
    const queues = await this.queues();
    return Object.fromEntries([...queues].filter(([, q]) => q.length > 0).map(([agent, q]) => [agent, q.length]));
  }

  override async beforeModelCallback({ context, request }: BeforeModelHookArgs): Promise<LlmResponse> {
    const recording = await this.next(context.agentName, "model call");
    const llm = recording.llmRecording;
    if (!llm) {
      throw new ReplayVerificationError(
        `Replay (${this.source}): agent "${context.agentName}" called its model, but the next recording is a call of ` +
          `tool "${recording.toolRecording?.toolCall.name}".`,
      );
    }
    if (this.verify === "strict") {
      const differences = diffValues(llm.llmRequest, serializableRequest(request), IGNORED_KEYS);
      if (differences.length)
        throw new ReplayVerificationError(
          `Replay (${this.source}): the model request of agent "${context.agentName}" differs from the recording:`,
          differences,
        );
    }
    const final = [...llm.llmResponses].reverse().find((r) => !r.partial) ?? llm.llmResponses.at(-1);
    if (!final)
      throw new ReplayConfigError(
        `Replay (${this.source}): a recorded model call of agent "${context.agentName}" has no response.`,
      );
    return structuredClone(final);
  }

  override async beforeToolCallback({
    tool,
    args,
    context,
  }: BeforeToolHookArgs): Promise<Record<string, unknown> | undefined> {
    const recording = await this.next(context.agentName, `call of tool "${tool.name}"`);
    const recorded = recording.toolRecording;
    if (!recorded)
      throw new ReplayVerificationError(
        `Replay (${this.source}): agent "${context.agentName}" called tool "${tool.name}", but the next recording is ` +
          `a model call.`,
      );
    if (this.verify === "strict") {
      const differences = diffValues(
        { name: recorded.toolCall.name, args: recorded.toolCall.args ?? {} },
        { name: tool.name, args },
        IGNORED_KEYS,
      );
      if (differences.length)
        throw new ReplayVerificationError(
          `Replay (${this.source}): the tool call of agent "${context.agentName}" differs from the recording:`,
          differences,
        );
    }
    if (runsLive(tool)) return undefined;
    if (!recorded.toolResponse)
      throw new ReplayConfigError(`Replay (${this.source}): the recorded call of tool "${tool.name}" has no response.`);
    // The tool does not run: apply the state it wrote when it was recorded.
    for (const [key, value] of Object.entries(recorded.stateDelta ?? {}))
      context.state.set(key, structuredClone(value));
    return structuredClone(recorded.toolResponse.response ?? {});
  }

  private async next(agentName: string, what: string): Promise<Recording> {
    const queue = (await this.queues()).get(agentName);
    const recording = queue?.shift();
    if (!recording)
      throw new ReplayVerificationError(
        `Replay (${this.source}): agent "${agentName}" made a ${what} that was not recorded (no recordings left for ` +
          `it).`,
      );
    return recording;
  }

  private queues(): Promise<Map<string, Recording[]>> {
    this.loaded ??= (async () => {
      const recordings =
        typeof this.fileOrRecordings === "string"
          ? await readRecordingsFile(this.fileOrRecordings)
          : structuredClone(this.fileOrRecordings);
      const byAgent = new Map<string, Recording[]>();
      for (const r of recordings.recordings) {
        const list = byAgent.get(r.agentName) ?? [];
        list.push(r);
        byAgent.set(r.agentName, list);
      }
      return byAgent;
    })();
    return this.loaded;
  }
}
