import {
  BasePlugin,
  type BaseTool,
  type CallbackContext,
  type InvocationContext,
  type LlmRequest,
  type ToolContext,
  type UserMessageHookArgs,
  type AfterRunHookArgs,
  type BeforeModelHookArgs,
  type AfterModelHookArgs,
  type BeforeToolHookArgs,
  type AfterToolHookArgs,
  type ToolErrorHookArgs,
} from "@agentkit/core";
import { writeRecordingsFile, type Recording, type Recordings, type RecordedLlmRequest } from "./recordings.js";

export interface RecordingsPluginOptions {
  /** Written (atomically) after every run and on close; omit to keep recordings in memory only. */
  file?: string;
  /** Plugin name (default `recordings`). */
  name?: string;
}

/**
 * Captures, per agent and in order, what a run asked of its models and tools and what came
 * back, as `Recordings` that `ReplayPlugin` serves later. The run itself is not changed.
 * `userMessageIndex` counts the user messages of each session seen by this plugin.
 */
export class RecordingsPlugin extends BasePlugin {
  private readonly file?: string;
  private readonly list: Recording[] = [];
  private readonly openModelCalls = new Map<string, Recording>();
  private readonly openToolCalls = new Map<string, Recording>();
  private readonly userMessageCounts = new Map<string, number>();
  private readonly invocationIndex = new Map<string, number>();
  private writing: Promise<void> = Promise.resolve();

  constructor(options: RecordingsPluginOptions = {}) {
    super(options.name ?? "recordings");
    this.file = options.file;
  }

  /** What was recorded so far (a copy). */
  get recordings(): Recordings {
    return structuredClone({ recordings: this.list });
  }

  override onUserMessageCallback({ invocationContext }: UserMessageHookArgs): undefined {
    const session = invocationContext.session.id;
    const index = this.userMessageCounts.get(session) ?? 0;
    this.userMessageCounts.set(session, index + 1);
    this.invocationIndex.set(invocationContext.invocationId, index);
    return undefined;
  }

  override beforeModelCallback({ context, request }: BeforeModelHookArgs): undefined {
    const recording: Recording = {
      userMessageIndex: this.indexOf(context.invocation),
      agentName: context.agentName,
      llmRecording: { llmRequest: serializableRequest(request), llmResponses: [] },
    };
    this.list.push(recording);
    this.openModelCalls.set(callKey(context), recording);
    return undefined;
  }

  override afterModelCallback({ context, response }: AfterModelHookArgs): undefined {
    this.openModelCalls.get(callKey(context))?.llmRecording?.llmResponses.push(structuredClone(response));
    return undefined;
  }

  override beforeToolCallback({ tool, args, context }: BeforeToolHookArgs): undefined {
    const recording: Recording = {
      userMessageIndex: this.indexOf(context.invocation),
      agentName: context.agentName,
      toolRecording: {
        toolCall: {
          name: tool.name,
          args: structuredClone(args),
          ...(context.functionCallId ? { id: context.functionCallId } : {}),
        },
      },
    };
    this.list.push(recording);
    this.openToolCalls.set(toolKey(context, tool), recording);
    return undefined;
  }

  override afterToolCallback({ tool, context, response }: AfterToolHookArgs): undefined {
    this.finishTool(context, tool, response);
    return undefined;
  }

  override onToolErrorCallback({ tool, context, error }: ToolErrorHookArgs): undefined {
    this.finishTool(context, tool, { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }

  override async afterRunCallback({ invocationContext }: AfterRunHookArgs): Promise<void> {
    for (const key of [...this.openModelCalls.keys()])
      if (key.startsWith(`${invocationContext.invocationId}/`)) this.openModelCalls.delete(key);
    this.invocationIndex.delete(invocationContext.invocationId);
    await this.flush();
  }

  override async close(): Promise<void> {
    await this.flush();
  }

  /** Writes the file now (serialized with earlier writes). */
  flush(): Promise<void> {
    if (!this.file) return Promise.resolve();
    const file = this.file;
    const snapshot = this.recordings;
    this.writing = this.writing.then(() => writeRecordingsFile(file, snapshot));
    return this.writing;
  }

  private finishTool(context: ToolContext, tool: BaseTool, response: Record<string, unknown>): void {
    const key = toolKey(context, tool);
    const recording = this.openToolCalls.get(key);
    if (!recording?.toolRecording) return;
    this.openToolCalls.delete(key);
    recording.toolRecording.toolResponse = {
      name: tool.name,
      response: structuredClone(response),
      ...(context.functionCallId ? { id: context.functionCallId } : {}),
    };
    const delta = context.actions.stateDelta;
    if (Object.keys(delta).length > 0)
      recording.toolRecording.stateDelta = JSON.parse(JSON.stringify(delta)) as Record<string, unknown>;
  }

  private indexOf(ctx: InvocationContext): number {
    return (
      this.invocationIndex.get(ctx.invocationId) ?? Math.max(0, (this.userMessageCounts.get(ctx.session.id) ?? 1) - 1)
    );
  }
}

function callKey(context: CallbackContext): string {
  return `${context.invocationId}/${context.agentName}/${context.branch ?? ""}`;
}

function toolKey(context: ToolContext, tool: BaseTool): string {
  return `${context.invocationId}/${context.functionCallId ?? tool.name}`;
}

/** The request as plain JSON: tool instances dropped (their declarations stay in config.tools). */
export function serializableRequest(request: LlmRequest): RecordedLlmRequest {
  const plain = {
    ...(request.model ? { model: request.model } : {}),
    contents: request.contents,
    config: request.config,
  };
  return JSON.parse(JSON.stringify(plain)) as RecordedLlmRequest;
}
